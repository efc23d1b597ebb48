import { serviceRepository } from "./agent-vault/services/repository.js";
import type { HookRegistry } from "./kernel/context.js";
import { environmentPurged, foldersRemoved } from "./secret-manager/hooks.js";

/**
 * Where one area acts on another's changes, registered once per instance: each line names the
 * hook an area emits (in its repository) and the handler another area runs in that transaction.
 */
export function registerHooks(hooks: HookRegistry): HookRegistry {
  return (
    hooks
      // Proxied services live in folders: they go with them, out of their access bundles too.
      .on(foldersRemoved, (ctx, { folderIds, at }) => ctx.repo(serviceRepository).removeInFolders(folderIds, at))
      .on(environmentPurged, (ctx, { envId, at }) => ctx.repo(serviceRepository).removeInEnvironment(envId, at))
  );
}
