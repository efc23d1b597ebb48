import type { EnvironmentRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { FOLDER_NAME_PATTERN, isWithin, joinPath, parentPath, ROOT_PATH } from "../paths.js";
import type { FolderRef } from "../secrets/model.js";
import type { FolderRow } from "../tables.js";
import { folderRepository } from "./repository.js";

/** The root folder of an environment is not stored: its id is the environment's. */
export const rootFolder = (envId: string): FolderRef => ({ id: envId, path: ROOT_PATH });

export async function requireFolder(ctx: Context, env: { id: string; slug: string }, path: string): Promise<FolderRef> {
  const folder = await ctx.repo(folderRepository).find(env.id, path);
  if (!folder) throw new NotFoundError(`Folder '${path}' not found in environment '${env.slug}'`);
  return folder;
}

/** `base` and every folder below it, parents before children. */
export async function folderSubtree(ctx: Context, env: { id: string; slug: string }, base: string): Promise<FolderRef[]> {
  const root = await requireFolder(ctx, env, base);
  const rows = await ctx.repo(folderRepository).ofEnvironment(env.id);
  const below = rows
    .filter((r) => r.path !== base && isWithin(r.path, base))
    .map((r) => ({ id: r.id, path: r.path }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return [root, ...below];
}

/**
 * Creates `path` and any missing folder above it, each only if `mayCreateIn` its parent path;
 * 400 when `path` itself exists. Run inside a transaction: the folders come all or none.
 */
export async function createPath(
  tx: Context,
  env: EnvironmentRow,
  path: string,
  description: string | null,
  now: string,
  mayCreateIn: (parentPath: string) => void,
): Promise<FolderRow> {
  const folders = tx.repo(folderRepository);
  const existing = new Map((await folders.ofEnvironment(env.id)).map((f) => [f.path, f]));
  if (existing.has(path)) throw new BadRequestError(`Folder '${path}' already exists`);
  const created: FolderRow[] = [];
  let parentId = env.id;
  for (let at = ROOT_PATH, rest = path.split("/").filter(Boolean); rest.length; rest = rest.slice(1)) {
    at = joinPath(at, rest[0]);
    const found = existing.get(at);
    if (found) {
      parentId = found.id;
      continue;
    }
    mayCreateIn(parentPath(at));
    const row: FolderRow = {
      id: newId(),
      projectId: env.projectId,
      envId: env.id,
      parentId,
      name: rest[0],
      path: at,
      description: at === path ? description : null,
      createdAt: now,
      updatedAt: now,
    };
    created.push(row);
    parentId = row.id;
  }
  await folders.insertMany(created);
  return created[created.length - 1];
}

/**
 * The folder a delete names: by id anywhere in the environment, by name inside `base`, or `base`
 * itself. `beforeLookup` runs with a path before that path is looked up, so a refusal there does
 * not depend on whether the folder exists.
 */
export async function locateFolder(
  ctx: Context,
  env: EnvironmentRow,
  base: string,
  idOrName: string | undefined,
  beforeLookup: (path: string) => void = () => {},
): Promise<FolderRow> {
  const folders = ctx.repo(folderRepository);
  if (idOrName === undefined) {
    if (base === ROOT_PATH) throw new BadRequestError("The root folder cannot be deleted");
    beforeLookup(base);
    await requireFolder(ctx, env, base);
    return (await folders.byPath(env.id, base))!;
  }
  const byId = await folders.byId(env.id, idOrName);
  if (byId) return byId;
  const path = FOLDER_NAME_PATTERN.test(idOrName) ? joinPath(base, idOrName) : undefined;
  if (path) beforeLookup(path);
  const byName = path && (await folders.byPath(env.id, path));
  if (!byName) throw new NotFoundError(`Folder '${path ?? idOrName}' not found in environment '${env.slug}'`);
  return byName;
}
