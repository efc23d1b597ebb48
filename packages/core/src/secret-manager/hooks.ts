import type { ProjectAccess } from "../access/project-access.js";
import type { RefusedRemovals } from "../access/removal.js";
import type { EnvironmentRow } from "../access/tables.js";
import { defineHook } from "../kernel/context.js";
import type { FolderRef } from "./secrets/model.js";

/**
 * What the secret manager tells other areas about its removals, inside the removing transaction:
 * things of theirs that live in its folders (proxied services) go with them. Handlers are
 * registered at assembly (src/hooks.ts); `at` is the removal's time.
 */
export const foldersRemoved = defineHook<{ projectId: string; envId: string; folderIds: readonly string[]; at: string }>(
  "secret-manager.folders-removed",
);

/** A soft-deleted environment purged for good, with everything in it. */
export const environmentPurged = defineHook<{ projectId: string; envId: string; at: string }>("secret-manager.environment-purged");

/**
 * Folders are about to be removed by an actor (a folder deletion, an environment deletion):
 * asked inside the removing transaction, before anything is removed, each area counts in
 * `refused` what it keeps in those folders that the actor may not delete. The removal goes on
 * only if nothing was counted (issue 15, principle 7).
 */
export const foldersRemoving = defineHook<{ access: ProjectAccess; env: EnvironmentRow; folders: readonly FolderRef[]; refused: RefusedRemovals }>(
  "secret-manager.folders-removing",
);

/** Something another area keeps in a folder, named by the permission subject that governs it. */
export interface FolderResident {
  readonly subject: string;
  readonly folderId: string;
  readonly name: string;
}

/**
 * Asks the other areas what they keep in some folders (proxied services): a change that moves
 * the folders must be allowed on each of those too. Handlers add to `residents`.
 */
export const folderResidents = defineHook<{ folderIds: readonly string[]; residents: FolderResident[] }>("secret-manager.folder-residents");

/** Something another area hands out by a secret's name: a proxied service's credential names a secret of its folder. */
export interface SecretNameUser {
  readonly folderId: string;
  readonly secretKey: string;
  /** What hands it out, as a refusal may say it ("a proxied service"). */
  readonly what: string;
}

/**
 * Asks the other areas which secret names they hand out in some folders. A rename that gives a
 * secret such a name sends its value wherever they send it, so the rename takes `readValue` on the
 * secret (issue 15, principle 5). Handlers add to `users`.
 */
export const secretNameUsers = defineHook<{ folderIds: readonly string[]; users: SecretNameUser[] }>("secret-manager.secret-name-users");
