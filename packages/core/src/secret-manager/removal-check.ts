import type { ProjectAccess } from "../access/project-access.js";
import { mayDeleteEverything, RefusedRemovals } from "../access/removal.js";
import type { EnvironmentRow, ProjectRow } from "../access/tables.js";
import type { Context } from "../kernel/context.js";
import { projectCipher } from "./cipher.js";
import { environmentRepository } from "./environments/repository.js";
import { folderRepository } from "./folders/repository.js";
import { rootFolder } from "./folders/tree.js";
import { importRepository } from "./imports/repository.js";
import { parentPath, ROOT_PATH } from "./paths.js";
import { decodeSecret, type FolderRef } from "./secrets/model.js";
import { foldersRemoving } from "./hooks.js";
import { secretRepository } from "./secrets/repository.js";
import { permissionObject } from "./secrets/visibility.js";
import { tagRepository } from "./tags/repository.js";

/**
 * What the secret manager removes with a container, counted in `refused` where the actor may not
 * delete it (issue 15, principle 7): every secret (shared or personal, by its name and tags), every
 * folder below (as its deletion is checked: against its parent path) and every import. Read in the
 * removing transaction, before anything is removed.
 */
export async function countRefusedFolderRemovals(
  ctx: Context,
  access: ProjectAccess,
  env: Pick<EnvironmentRow, "id" | "slug">,
  folders: readonly FolderRef[],
  refused: RefusedRemovals,
): Promise<void> {
  const environment = env.slug;
  for (const folder of folders) {
    if (folder.path !== ROOT_PATH) refused.note("folders", access.can("delete", "secret-folders", { environment, secretPath: parentPath(folder.path) }));
  }
  for (const row of await ctx.repo(importRepository).ofFolders(folders)) {
    const folder = folders.find((f) => f.id === row.folderId)!;
    refused.note("imports", access.can("delete", "secret-imports", { environment, secretPath: folder.path }));
  }
  // Secrets are looked at one by one only where a name or tag could make a difference.
  const examined = folders.filter((folder) => !mayDeleteEverything(access, "secrets", { environment, secretPath: folder.path }));
  const rows = await ctx.repo(secretRepository).inFolders(examined.map((f) => f.id));
  if (rows.length === 0) return;
  const cipher = await projectCipher(ctx, access.project);
  const tags = await ctx.repo(tagRepository).ofProject(access.project.id);
  const byId = new Map(examined.map((f) => [f.id, f]));
  for (const row of rows) {
    const folder = byId.get(row.folderId)!;
    const { key } = decodeSecret(cipher, row, folder);
    refused.note("secrets", access.can("delete", "secrets", permissionObject(environment, folder.path, key, row.tagIds, tags)));
  }
}

/** Every folder of an environment, its root first. */
export async function foldersOfEnvironment(ctx: Context, env: Pick<EnvironmentRow, "id">): Promise<FolderRef[]> {
  const stored = await ctx.repo(folderRepository).ofEnvironment(env.id);
  return [rootFolder(env.id), ...stored.map((f) => ({ id: f.id, path: f.path }))];
}

/**
 * The secret manager's part of a project deletion, counted in `refused`: every environment
 * (soft-deleted ones too: the project takes them) with everything in it, and every tag.
 */
export async function countRefusedProjectRemovals(ctx: Context, access: ProjectAccess, project: ProjectRow, refused: RefusedRemovals): Promise<void> {
  const everything = ["secrets", "secret-folders", "secret-imports", "environments", "tags"].every((subject) => mayDeleteEverything(access, subject));
  if (everything) return;
  for (const env of await ctx.repo(environmentRepository).allOf(project.id)) {
    refused.note("environments", access.can("delete", "environments", { environment: env.slug }));
    await countRefusedFolderRemovals(ctx, access, env, await foldersOfEnvironment(ctx, env), refused);
  }
  for (let n = (await ctx.repo(tagRepository).ofProject(project.id)).size; n > 0; n--) refused.note("tags", access.can("delete", "tags"));
}

/**
 * 403 (and nothing removed) unless the actor may delete everything removing these folders of
 * `env` removes: the secret manager's part, then every other area's (`foldersRemoving`). Run in
 * the removing transaction.
 */
export async function requireRemovable(tx: Context, access: ProjectAccess, env: EnvironmentRow, folders: readonly FolderRef[], container: string): Promise<void> {
  const refused = new RefusedRemovals();
  await countRefusedFolderRemovals(tx, access, env, folders, refused);
  await tx.emit(foldersRemoving, { access, env, folders, refused });
  refused.assertNone(container);
}
