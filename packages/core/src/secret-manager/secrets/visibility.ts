import type { ProjectAccess } from "../../access/project-access.js";
import { PermissionDeniedError } from "../../kernel/errors.js";
import type { ProjectCipher } from "../cipher.js";
import type { SecretRow, TagRow } from "../tables.js";
import { decodeSecret, type FolderRef, type PlainSecret } from "./model.js";
import type { SecretObject } from "./schemas.js";
import { tagsOf, toSecretObject } from "./view.js";

export type SecretAction = "describeSecret" | "readValue" | "create" | "edit" | "delete";

/** The concrete object every secret check is made against (DESIGN.md §4). */
export function permissionObject(environment: string, secretPath: string, secretName: string, tagIds: readonly string[], tags: ReadonlyMap<string, TagRow>) {
  return { environment, secretPath, secretName, secretTags: tagsOf(tagIds, tags).map((t) => t.slug) };
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

/**
 * A secret as the caller may see it: undefined without `describeSecret`; the value (and encrypted
 * metadata values) blank, with `secretValueHidden`, without `readValue`.
 */
export function present(view: ReadView, secret: PlainSecret): SecretObject | undefined {
  const object = permissionObject(view.environment, secret.folder.path, secret.key, secret.tagIds, view.tags);
  if (!view.access.can("describeSecret", "secrets", object)) return undefined;
  const readable = view.viewValue && view.access.can("readValue", "secrets", object);
  return toSecretObject(secret, { projectId: view.projectId, environment: view.environment, tags: view.tags }, !readable);
}

/** A secret the caller has just written: shown even without `describeSecret` (it named it), the value only with `readValue`. */
export function presentWritten(view: ReadView, secret: PlainSecret): SecretObject {
  const object = permissionObject(view.environment, secret.folder.path, secret.key, secret.tagIds, view.tags);
  const readable = view.viewValue && view.access.can("readValue", "secrets", object);
  return toSecretObject(secret, { projectId: view.projectId, environment: view.environment, tags: view.tags }, !readable);
}
