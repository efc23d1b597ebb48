import { defineHook } from "../kernel/context.js";

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
