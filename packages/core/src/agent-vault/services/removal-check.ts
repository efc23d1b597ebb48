import type { ProjectAccess } from "../../access/project-access.js";
import { mayDeleteEverything, type RefusedRemovals } from "../../access/removal.js";
import type { EnvironmentRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { environmentRepository } from "../../secret-manager/environments/repository.js";
import { folderRepository } from "../../secret-manager/folders/repository.js";
import { ROOT_PATH } from "../../secret-manager/paths.js";
import type { FolderRef } from "../../secret-manager/secrets/model.js";
import type { ServiceRow } from "../tables.js";
import { serviceRepository } from "./repository.js";

/**
 * The proxied services a container's removal takes with it, counted in `refused` where the actor
 * may not `delete` them (checked, as every proxied-services check, against their environment and
 * folder path). Read in the removing transaction, before anything is removed.
 */

/** Services in some folders of one environment (a folder or an environment being removed). */
export async function countRefusedServiceRemovalsInFolders(
  ctx: Context,
  access: ProjectAccess,
  env: Pick<EnvironmentRow, "slug">,
  folders: readonly FolderRef[],
  refused: RefusedRemovals,
): Promise<void> {
  if (mayDeleteEverything(access, "proxied-services", { environment: env.slug })) return;
  const paths = new Map(folders.map((f) => [f.id, f.path]));
  for (const service of await ctx.repo(serviceRepository).inFolders([...paths.keys()])) {
    refused.note("proxied services", access.can("delete", "proxied-services", { environment: env.slug, secretPath: paths.get(service.folderId)! }));
  }
}

/** Every service of a project being deleted, soft-deleted environments' included. */
export async function countRefusedServiceRemovalsInProject(ctx: Context, access: ProjectAccess, projectId: string, refused: RefusedRemovals): Promise<void> {
  if (mayDeleteEverything(access, "proxied-services")) return;
  for (const service of await ctx.repo(serviceRepository).allOfProject(projectId)) {
    const where = await whereItLives(ctx, service);
    refused.note("proxied services", where !== undefined && access.can("delete", "proxied-services", where));
  }
}

/** A service's environment slug and folder path, its environment soft-deleted or not. */
async function whereItLives(ctx: Context, service: Pick<ServiceRow, "envId" | "folderId">): Promise<{ environment: string; secretPath: string } | undefined> {
  const env = await ctx.repo(environmentRepository).byId(service.envId);
  if (!env) return undefined;
  const path = service.folderId === env.id ? ROOT_PATH : (await ctx.repo(folderRepository).byId(env.id, service.folderId))?.path;
  return path === undefined ? undefined : { environment: env.slug, secretPath: path };
}
