import type { EnvironmentRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { environmentRepository } from "../../secret-manager/environments/repository.js";
import { folderRepository } from "../../secret-manager/folders/repository.js";
import { rootFolder } from "../../secret-manager/folders/tree.js";
import type { FolderRef } from "../../secret-manager/secrets/model.js";
import type { ServiceRow } from "../tables.js";

/** Where a service lives. Absent when its environment or folder is gone: such a service is treated as gone too. */
export interface ServiceLocation {
  env: EnvironmentRow;
  folder: FolderRef;
}

/** The object a `proxied-services` check is made against: conditions on environment and path apply. */
export const servicePermissionObject = (location: ServiceLocation) => ({
  environment: location.env.slug,
  secretPath: location.folder.path,
});

export async function serviceLocation(ctx: Context, service: Pick<ServiceRow, "envId" | "folderId">): Promise<ServiceLocation | undefined> {
  const env = await ctx.repo(environmentRepository).byId(service.envId);
  if (!env || env.deletedAt !== null) return undefined;
  if (service.folderId === env.id) return { env, folder: rootFolder(env.id) };
  const folder = await ctx.repo(folderRepository).byId(env.id, service.folderId);
  return folder && { env, folder: { id: folder.id, path: folder.path } };
}
