import { NotFoundError } from "../../kernel/errors.js";
import type { FolderRef } from "../secrets/model.js";
import { isWithin, ROOT_PATH } from "../paths.js";
import type { SecretManagerRow } from "../tables.js";
import type { AppStorage as Storage } from "../../schema.js";

export type FolderRow = SecretManagerRow<"secretFolders">;

/** The root folder of an environment is not stored: its id is the environment's. */
export const rootFolder = (envId: string): FolderRef => ({ id: envId, path: ROOT_PATH });

export async function findFolder(storage: Storage, envId: string, path: string): Promise<FolderRef | undefined> {
  if (path === ROOT_PATH) return rootFolder(envId);
  const row = await storage.tables.secretFolders.findOne({ envId, path });
  return row && { id: row.id, path: row.path };
}

export async function requireFolder(storage: Storage, env: { id: string; slug: string }, path: string): Promise<FolderRef> {
  const folder = await findFolder(storage, env.id, path);
  if (!folder) throw new NotFoundError(`Folder '${path}' not found in environment '${env.slug}'`);
  return folder;
}

/** `base` and every folder below it, parents before children. */
export async function folderSubtree(storage: Storage, env: { id: string; slug: string }, base: string): Promise<FolderRef[]> {
  const root = await requireFolder(storage, env, base);
  const rows = await storage.tables.secretFolders.find({ envId: env.id });
  const below = rows
    .filter((r) => r.path !== base && isWithin(r.path, base))
    .map((r) => ({ id: r.id, path: r.path }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return [root, ...below];
}
