import type { ProjectAccess } from "../../access/project-access.js";
import { PermissionDeniedError } from "../../kernel/errors.js";
import type { ProjectCipher } from "../cipher.js";
import { ROOT_PATH } from "../paths.js";
import type { SecretRow, TagRow } from "../tables.js";
import { decodeSecret, type FolderRef, type PlainSecret } from "./model.js";
import type { SecretObject } from "./schemas.js";
import { tagSlugsOf, toSecretObject } from "./view.js";

export type SecretAction = "describeSecret" | "readValue" | "create" | "edit" | "delete";

/** The concrete object every secret check is made against (DESIGN.md §4). */
export function permissionObject(environment: string, secretPath: string, secretName: string, tagIds: readonly string[], tags: ReadonlyMap<string, TagRow>) {
  return { environment, secretPath, secretName, secretTags: tagSlugsOf(tagIds, tags) };
}

/** 403 naming the secret, its environment and path. */
export function requireOnSecret(
  access: ProjectAccess,
  action: SecretAction,
  environment: string,
  secret: { folder: FolderRef; key: string; tagIds: readonly string[] },
  tags: ReadonlyMap<string, TagRow>,
): void {
  if (!access.can(action, "secrets", permissionObject(environment, secret.folder.path, secret.key, secret.tagIds, tags))) {
    throw new PermissionDeniedError(`You are not allowed to ${action} secret '${secret.key}' in ${environment}:${secret.folder.path}`);
  }
}

/** A secret where it is: its environment's slug, its folder, name and tags. */
export interface PlacedSecret {
  readonly environment: string;
  readonly secret: { folder: FolderRef; key: string; tagIds: readonly string[] };
}

const placedObject = ({ environment, secret }: PlacedSecret, tags: ReadonlyMap<string, TagRow>) =>
  permissionObject(environment, secret.folder.path, secret.key, secret.tagIds, tags);

/**
 * 403 unless the actor may `edit` the secret as it is and as it will be, and the change gives it
 * nothing on the secret it lacks now (ProjectAccess.requireChange). Every change that moves a
 * secret in the permission space comes through here: rename, retag, tag deletion, environment
 * rename. `tags` must still hold every tag either side names.
 */
export function requireSecretChange(access: ProjectAccess, before: PlacedSecret, after: PlacedSecret, tags: ReadonlyMap<string, TagRow>): void {
  const what = `secret '${before.secret.key}' in ${before.environment}:${before.secret.folder.path}`;
  access.requireChange("edit", "secrets", placedObject(before, tags), placedObject(after, tags), what);
}

/**
 * 403 when no secret at this place could be described by the actor, whatever its tags (and, when
 * `secretName` is undefined, its name): the refusal that does not depend on whether the secret or
 * its folder exists (DESIGN.md §11). Checked before anything is looked up.
 */
export function requireCouldDescribe(access: ProjectAccess, environment: string, secretPath: string, secretName: string | undefined): void {
  const free = secretName === undefined ? ["secretTags", "secretName"] : ["secretTags"];
  if (!access.couldAllow("describeSecret", "secrets", { environment, secretPath, secretName }, free)) {
    const what = secretName === undefined ? "secrets" : `secret '${secretName}'`;
    throw new PermissionDeniedError(`You are not allowed to describeSecret ${what} in ${environment}:${secretPath}`);
  }
}

/** requireCouldDescribe for any secret in `base` or a folder below it (a recursive read). */
export function requireCouldDescribeBelow(access: ProjectAccess, environment: string, base: string): void {
  const below = { secretPath: { $glob: base === ROOT_PATH ? "/**" : `${base}/**` } };
  if (!access.couldAllow("describeSecret", "secrets", { environment }, ["secretTags", "secretName", "secretPath"], below)) {
    throw new PermissionDeniedError(`You are not allowed to describeSecret secrets in ${environment}:${base}`);
  }
}

/** What reading secrets of one environment needs. `viewValue: false` hides values the caller could read. */
export interface ReadView {
  readonly access: ProjectAccess;
  readonly cipher: ProjectCipher;
  readonly projectId: string;
  readonly environment: string;
  readonly tags: ReadonlyMap<string, TagRow>;
  readonly viewValue: boolean;
}

/** A stored secret as the caller may see it; undefined when it may not even describe it. */
export const presentRow = (view: ReadView, row: SecretRow, folder: FolderRef): SecretObject | undefined =>
  present(view, decodeSecret(view.cipher, row, folder));

/** Whether the caller holds `action` on every one of these states of a secret. */
function holdsOnAll(view: ReadView, action: SecretAction, states: readonly PlainSecret[]): boolean {
  return states.every((s) => view.access.can(action, "secrets", permissionObject(view.environment, s.folder.path, s.key, s.tagIds, view.tags)));
}

/**
 * A secret as the caller may see it: undefined without `describeSecret`; the value (and encrypted
 * metadata values) blank, with `secretValueHidden`, without `readValue`. `alsoAs` are other states
 * of the same secret that each right must hold on too: reading an earlier version shows it only
 * to a caller who may read the secret as it is now and as it was then ("history is the secret").
 */
export function present(view: ReadView, secret: PlainSecret, alsoAs: readonly PlainSecret[] = []): SecretObject | undefined {
  const states = [secret, ...alsoAs];
  if (!holdsOnAll(view, "describeSecret", states)) return undefined;
  const readable = view.viewValue && holdsOnAll(view, "readValue", states);
  return toSecretObject(secret, { projectId: view.projectId, environment: view.environment, tags: view.tags }, !readable);
}

/**
 * A secret the caller has just written, `before` being what it was (none for a creation). Shown
 * even without `describeSecret`, as it named it, but then without comment, metadata, reminder or
 * tags; the value only with `readValue`. Each right must hold on the secret both before and after
 * the write: an answer never shows what the caller could not see of either.
 */
export function presentWritten(view: ReadView, secret: PlainSecret, before?: PlainSecret): SecretObject {
  const states = before ? [secret, before] : [secret];
  const readable = view.viewValue && holdsOnAll(view, "readValue", states);
  return toSecretObject(describedOnly(view, secret, before), { projectId: view.projectId, environment: view.environment, tags: view.tags }, !readable);
}

/**
 * A written secret as far as the caller may describe it before and after the write: without
 * comment, metadata, reminder and tags when it may not. Every view of a written secret (the
 * plain one above, the ciphertext view of tag changes) is made from this.
 */
export function describedOnly(view: ReadView, secret: PlainSecret, before?: PlainSecret): PlainSecret {
  if (holdsOnAll(view, "describeSecret", before ? [secret, before] : [secret])) return secret;
  return { ...secret, comment: "", metadata: [], tagIds: [], reminderNote: null, reminderRepeatDays: null };
}
