import { createPublicKey, hash as oneShotHash, sign as edSign, verify as edVerify, type KeyObject } from "node:crypto";
import type { AuditCheckpoint, AuditEntry, AuditMetadata } from "./schemas.js";

/**
 * The hash chain, as pure functions: what an entry's hash covers and what a checkpoint signs.
 * Anyone holding entries in their public form (API answers, sink lines) and the instance's public
 * key can recompute both; nothing here needs a secret.
 *
 *   metadataDigest = sha256(salt ‖ canonical(metadata))
 *   hash           = sha256(canonical([v1, prevHash, chain, seq, id, createdAt, …fields, metadataDigest]))
 *
 * The salt is random (one per distinct metadata, reused while the instance keeps it: append.ts)
 * and sealed at rest with the metadata, so a database dump does not let anyone test guesses of a
 * secret's name against the (plaintext) hash.
 */

/** The `prevHash` of a chain's first entry. */
export const GENESIS_HASH = "0".repeat(64);

const HASH_VERSION = "strongroom-audit-v1";

/** JSON with object keys sorted at every level: the same value always gives the same text. */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortedCopy(value) ?? null);

/**
 * The value with every object's keys in sorted order (objects copied, arrays of scalars kept), so
 * one native `JSON.stringify` writes the canonical text: this runs for every recorded entry, and
 * stringifying key by key costs about twice as much. Prototype-free copies keep a `__proto__` key
 * an ordinary key.
 *
 * A plain object whose keys are in sorted order already, holding nothing that needs a copy, is
 * kept as it is (a batch's thousand `{ secretKey }` items): `JSON.stringify` writes the same text
 * for it as for its copy, since both enumerate integer-like keys first in ascending order, then
 * the others in the order given.
 */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item !== null && typeof item === "object") {
        const sorted = sortedCopy(item);
        if (sorted === item) continue;
        copy ??= value.slice();
        copy[i] = sorted;
      }
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let out: Record<string, unknown> | undefined;
  if (inSortedOrder(record, keys)) {
    // Kept unless a value needs a copy; then copied from that key on (the keys before it kept as they are).
    for (let i = 0; i < keys.length; i++) {
      const item = record[keys[i]];
      const sorted = item !== null && typeof item === "object" ? sortedCopy(item) : item;
      if (out === undefined && typeof item === "object" && sorted !== item) {
        out = Object.create(null) as Record<string, unknown>;
        for (let j = 0; j < i; j++) out[keys[j]] = record[keys[j]];
      }
      if (out !== undefined) out[keys[i]] = sorted;
    }
    return out ?? record;
  }
  out = Object.create(null) as Record<string, unknown>;
  for (const key of keys.sort()) out[key] = sortedCopy(record[key]);
  return out;
}

/** True for a plain object (no prototype but Object's, or none) whose keys, as enumerated, are in `sort()` order. */
function inSortedOrder(record: object, keys: readonly string[]): boolean {
  const prototype: unknown = Object.getPrototypeOf(record);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (let i = 1; i < keys.length; i++) if (!(keys[i - 1] < keys[i])) return false;
  return true;
}

// One-shot hashing: no Hash object per call (two hashes per entry, on every read).
const sha256 = (text: string): string => oneShotHash("sha256", text, "hex");

/** The digest of metadata already in its canonical text (the writer has it at hand: it seals the same text). */
export const canonicalDigest = (salt: string, canonicalMetadata: string): string => sha256(`${salt}\n${canonicalMetadata}`);

export const metadataDigest = (salt: string, metadata: AuditMetadata): string => canonicalDigest(salt, canonicalJson(metadata));

/** What an entry's hash covers: every field but `hash` itself. */
export type HashedFields = Omit<AuditEntry, "hash">;

/** The same fields as a stored row holds them (flat, metadata sealed: the hash takes its digest). */
export interface HashedRow {
  readonly prevHash: string;
  readonly chainId: string;
  readonly seq: number;
  readonly id: string;
  readonly createdAt: string;
  readonly orgId: string | null;
  readonly projectId: string | null;
  readonly environment: string | null;
  readonly secretPath: string | null;
  readonly actorType: string;
  readonly actorId: string | null;
  readonly actorName: string | null;
  readonly eventType: string;
  readonly outcome: string;
  readonly ipAddress: string | null;
  readonly userAgent: string | null;
  readonly count: number;
}

/** The hash of an entry given as a row and the `metadataDigest` of its metadata. */
export const rowHash = (r: HashedRow, digest: string): string => sha256(hashedText(r, contextText(r), digest));

/**
 * The text an entry's hash is taken of: the canonical JSON of
 * `[v1, prevHash, chain, seq, id, createdAt, orgId, …, userAgent, count, metadataDigest]` — an
 * array of scalars, which JSON.stringify writes canonically — assembled from each element's JSON
 * so that the run of fields entries of one caller share (`contextText`) is written once per run.
 */
function hashedText(r: HashedRow, context: string, digest: string): string {
  const j = JSON.stringify;
  return `[${HASHED_VERSION},${j(r.prevHash)},${j(r.chainId)},${j(r.seq)},${j(r.id)},${j(r.createdAt)},${context},${j(r.count)},${j(digest)}]`;
}

const HASHED_VERSION = JSON.stringify(HASH_VERSION);

/** `orgId` … `userAgent`, as the elements of the hashed array (without its brackets). */
const contextText = (r: HashContext): string =>
  JSON.stringify([r.orgId, r.projectId, r.environment, r.secretPath, r.actorType, r.actorId, r.actorName, r.eventType, r.outcome, r.ipAddress, r.userAgent]).slice(1, -1);

type HashContext = Pick<HashedRow, "orgId" | "projectId" | "environment" | "secretPath" | "actorType" | "actorId" | "actorName" | "eventType" | "outcome" | "ipAddress" | "userAgent">;

/** The same `orgId` … `userAgent` (entries of a run share the very same strings, from the same caches). */
export const sameHashContext = (a: HashContext, b: HashContext): boolean =>
  a.orgId === b.orgId &&
  a.projectId === b.projectId &&
  a.environment === b.environment &&
  a.secretPath === b.secretPath &&
  a.actorType === b.actorType &&
  a.actorId === b.actorId &&
  a.actorName === b.actorName &&
  a.eventType === b.eventType &&
  a.outcome === b.outcome &&
  a.ipAddress === b.ipAddress &&
  a.userAgent === b.userAgent;

/** `rowHash` for the rows of one append in order: a run of rows with one context writes its text once. */
export class RowHasher {
  private last: HashedRow | undefined;
  private context = "";

  hash(r: HashedRow, digest: string): string {
    if (this.last === undefined || !sameHashContext(this.last, r)) this.context = contextText(r);
    this.last = r;
    return sha256(hashedText(r, this.context, digest));
  }
}

/** `digest`: the entry's `metadataDigest`, when the caller already computed it. */
export function entryHash(entry: HashedFields, digest = metadataDigest(entry.salt, entry.event.metadata)): string {
  return rowHash(
    {
      prevHash: entry.prevHash,
      chainId: entry.chain,
      seq: entry.seq,
      id: entry.id,
      createdAt: entry.createdAt,
      orgId: entry.orgId,
      projectId: entry.projectId,
      environment: entry.environment,
      secretPath: entry.secretPath,
      actorType: entry.actor.type,
      actorId: entry.actor.metadata.id,
      actorName: entry.actor.metadata.name,
      eventType: entry.event.type,
      outcome: entry.outcome,
      ipAddress: entry.ipAddress,
      userAgent: entry.userAgent,
      count: entry.count,
    },
    digest,
  );
}

/** The bytes a checkpoint's signature covers. */
export const checkpointMessage = (c: Pick<AuditCheckpoint, "chain" | "seq" | "hash" | "createdAt">): Buffer =>
  Buffer.from(`${HASH_VERSION}:checkpoint\n${c.chain}\n${c.seq}\n${c.hash}\n${c.createdAt}`, "utf8");

export function signCheckpoint(c: Pick<AuditCheckpoint, "chain" | "seq" | "hash" | "createdAt">, privateKey: KeyObject): string {
  return edSign(null, checkpointMessage(c), privateKey).toString("base64");
}

/** True when `checkpoint` was signed by the key whose SPKI DER (base64) is `publicKeySpki`. */
export function checkpointSignatureValid(checkpoint: AuditCheckpoint, publicKeySpki: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKeySpki, "base64"), format: "der", type: "spki" });
    return edVerify(null, checkpointMessage(checkpoint), key, Buffer.from(checkpoint.signature, "base64"));
  } catch {
    return false;
  }
}
