import type { Actor } from "../kernel/actor.js";
import { StrongroomError } from "../kernel/errors.js";
import type { AuditActorType, AuditMetadata, AuditOutcome } from "./schemas.js";

/**
 * An entry before it is placed in a chain: what the recorder knows of one operation. Pure
 * builders only; the writer resolves what needs a lookup (an organization from a project) and
 * seals the metadata.
 */
export interface AuditDraft {
  readonly eventType: string;
  readonly outcome: AuditOutcome;
  readonly at: string;
  readonly actor: { readonly type: AuditActorType; readonly id: string | null; readonly name: string | null };
  readonly orgId: string | null;
  readonly projectId: string | null;
  readonly environment: string | null;
  readonly secretPath: string | null;
  readonly ipAddress: string | null;
  readonly userAgent: string | null;
  readonly metadata: AuditMetadata;
  /** Secret keys the entry names: each gets a blind index for the `secretKey` filter. */
  readonly secretKeys: readonly string[];
  readonly count: number;
}

export type ChainId = `project:${string}` | `org:${string}` | "instance";

/** Project events go to the project's chain, other organization events to the organization's, the rest to the instance's. */
export const chainOf = (draft: Pick<AuditDraft, "projectId" | "orgId">): ChainId =>
  draft.projectId ? `project:${draft.projectId}` : draft.orgId ? `org:${draft.orgId}` : "instance";

export function outcomeOf(error: unknown): AuditOutcome {
  if (error === undefined) return "success";
  if (error instanceof StrongroomError && ["UnauthorizedError", "PermissionDenied", "PermissionBoundaryError"].includes(error.code)) return "denied";
  return "failed";
}

export function actorOf(actor: Actor): AuditDraft["actor"] & { orgId: string | null } {
  switch (actor.type) {
    case "user":
      return { type: "user", id: actor.userId, name: null, orgId: null };
    case "identity":
      return { type: "identity", id: actor.identityId, name: null, orgId: actor.orgId };
    case "agent-proxy":
      return { type: "agent-proxy", id: actor.proxyId, name: null, orgId: actor.orgId };
    default:
      return { type: "unknownUser", id: null, name: null, orgId: null };
  }
}

/**
 * Input fields copied into metadata: names and ids only. A whitelist, so a field added to an
 * operation later (a value, a password, a token) is never recorded by accident.
 */
const SAFE_FIELDS: ReadonlySet<string> = new Set([
  "id",
  "secretName",
  "secretKey",
  "secretPath",
  "path",
  "environment",
  "name",
  "slug",
  "newSecretName",
  "projectName",
  "organization",
  "clientId",
  "version",
  "type",
  "role",
  "roles",
  "email",
  "emails",
  "usernames",
  "keyName",
  "host",
  "port",
  "ttl",
  "recursive",
  "expandSecretReferences",
  "include_imports",
  "includeImports",
  "viewSecretValue",
  "limit",
  "offset",
]);

/** Fields that name a record (`projectId`, `clientSecretId`, …) end in `Id` or `Ids`; none holds a credential. */
const isIdFieldName = (key: string): boolean => /^[a-z][A-Za-z]*Ids?$/.test(key) && !/token|secretValue|password/i.test(key.replace(/Ids?$/, ""));

/**
 * Whether a field is copied into metadata: every recorded call asks about the same few field names
 * (a batch, once per item), so each is decided once, in one lookup (bounded: a failed call's raw
 * input names anything).
 */
const safeFields = new Map<string, boolean>();
function isSafeField(key: string): boolean {
  let decided = safeFields.get(key);
  if (decided === undefined) {
    decided = SAFE_FIELDS.has(key) || isIdFieldName(key);
    if (safeFields.size >= 1_000) safeFields.clear();
    safeFields.set(key, decided);
  }
  return decided;
}

const MAX_TEXT = 256;
const MAX_LIST = 100;

function safeScalar(value: unknown): unknown {
  if (typeof value === "string") return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  if (typeof value === "number" || typeof value === "boolean" || value === null) return value;
  if (Array.isArray(value)) {
    const scalars = value.filter((v) => typeof v === "string" || typeof v === "number").slice(0, MAX_LIST);
    return scalars.map(safeScalar);
  }
  return undefined;
}

export function pickSafe(source: Record<string, unknown>): AuditMetadata {
  const out: AuditMetadata = {};
  // Own enumerable string keys in order, as Object.entries gives them, without an array per field.
  for (const key of Object.keys(source)) {
    if (!isSafeField(key)) continue;
    const safe = safeScalar(source[key]);
    if (safe !== undefined) out[key] = safe;
  }
  return out;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What an entry says about an operation: the input's names and ids (batch items' keys too), the
 * ids and versions the answer names, the error code of a failure. Never a value.
 */
export const metadataOf = (input: unknown, result: unknown, error: unknown): AuditMetadata => withOutcome(inputMetadataOf(input), result, error);

/**
 * The part of an entry's metadata its input decides: known, and prepared, before the change's
 * transaction (prepared.ts). `safeItems`: `batchItemsOf(input)` already picked (paced there).
 */
export function inputMetadataOf(input: unknown, safeItems?: AuditMetadata[]): AuditMetadata {
  const metadata: AuditMetadata = isRecord(input) ? pickSafe(input) : {};
  if (isRecord(input) && Array.isArray(input.secrets)) {
    metadata.secrets = safeItems ?? batchItemsOf(input).map(pickSafe);
    metadata.secretCount = input.secrets.length;
  }
  return metadata;
}

/** A batch's items the metadata names (the first 1,000), each to go through `pickSafe`. */
export const batchItemsOf = (input: unknown): Record<string, unknown>[] =>
  isRecord(input) && Array.isArray(input.secrets) ? input.secrets.filter(isRecord).slice(0, 1000) : [];

/**
 * `metadata` with what the answer and the error add. `metadata` itself when they add nothing (a
 * batch's answer names no single record), so what was sealed ahead for it still applies; a copy
 * otherwise, so input metadata prepared once is never changed.
 */
export function withOutcome(metadata: AuditMetadata, result: unknown, error: unknown): AuditMetadata {
  let out: AuditMetadata | undefined;
  if (isRecord(result)) {
    for (const key in result) {
      const value = result[key];
      if (!isRecord(value) || typeof value.id !== "string" || key === "id" || !Object.hasOwn(result, key)) continue;
      const names = answerFieldsOf(key);
      out ??= copyOf(metadata);
      out[names.id] ??= value.id;
      if (typeof value.version === "number") out[names.version] = value.version;
    }
  }
  if (error !== undefined) {
    out ??= copyOf(metadata);
    out.error = error instanceof StrongroomError ? error.code : "InternalServerError";
  }
  return out ?? metadata;
}

/**
 * A copy to add fields to. Not `{ ...metadata }`: V8 gives a spread copy a map that adding a
 * property to leaves (~3 µs each time, on every read); `Object.assign` onto `{}` follows the
 * usual, cached transitions (~0.1 µs).
 */
const copyOf = (metadata: AuditMetadata): AuditMetadata => Object.assign({}, metadata);

/**
 * `secretId` and `secretVersion` for an answer's `secret`, made once per field name: a property
 * name built afresh on every call (a template string) is looked up anew by the engine each time;
 * the same string every time is not. Answers have a few names.
 */
const answerFields = new Map<string, { id: string; version: string }>();
function answerFieldsOf(key: string): { id: string; version: string } {
  let names = answerFields.get(key);
  if (names === undefined) {
    names = { id: `${key}Id`, version: `${key}Version` };
    if (answerFields.size >= 1_000) answerFields.clear();
    answerFields.set(key, names);
  }
  return names;
}

const MAX_KEYS = 1000;

/** The secret keys an operation's input names (single or batch), the first MAX_KEYS of them. */
export function secretKeysOf(input: unknown): string[] {
  if (!isRecord(input)) return [];
  const keys = new Set<string>();
  for (const field of ["secretName", "secretKey", "newSecretName"]) if (typeof input[field] === "string") keys.add(input[field] as string);
  if (Array.isArray(input.secrets)) {
    // Only the first MAX_KEYS are kept: the rest of a 5,000-item batch need not be looked at.
    for (const item of input.secrets) {
      if (keys.size >= MAX_KEYS) break;
      if (isRecord(item) && typeof item.secretKey === "string") keys.add(item.secretKey);
      if (isRecord(item) && typeof item.secretName === "string") keys.add(item.secretName);
    }
  }
  return [...keys].slice(0, MAX_KEYS);
}

const str = (value: unknown): string | null => (typeof value === "string" && value.length > 0 ? value : null);

/** Where an operation acted, from its middleware's scope first, then its input, then its answer (a created project). */
export function placeOf(input: unknown, scope: unknown, result: unknown): Pick<AuditDraft, "orgId" | "projectId" | "environment" | "secretPath"> {
  const i = isRecord(input) ? input : {};
  const s = isRecord(scope) ? scope : {};
  const project = isRecord(s.project) ? s.project : undefined;
  const env = isRecord(s.env) ? s.env : undefined;
  const created = isRecord(result) ? (isRecord(result.project) ? result.project : isRecord(result.workspace) ? result.workspace : undefined) : undefined;
  return {
    orgId: str(project?.orgId) ?? str(s.orgId) ?? str(i.organizationId) ?? str(i.orgId) ?? str(created?.orgId),
    projectId: str(project?.id) ?? str(i.projectId) ?? str(i.workspaceId) ?? str(created?.id),
    environment: str(env?.slug) ?? str(i.environment),
    secretPath: str(i.secretPath) ?? str(i.path),
  };
}

/** Anonymous failures with no organization are counted per client address, event and minute rather than one entry each. */
export const aggregationKey = (draft: AuditDraft): string | undefined =>
  draft.actor.type === "unknownUser" && draft.outcome !== "success" && draft.orgId === null && draft.projectId === null
    ? `${draft.ipAddress ?? "-"}|${draft.eventType}|${draft.outcome}|${draft.at.slice(0, 16)}`
    : undefined;
