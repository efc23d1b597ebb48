import type { EnvironmentRow } from "../../access/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { foldersRemoved } from "../hooks.js";
import { UniqueViolationError } from "../../kernel/errors.js";
import { isWithin, ROOT_PATH } from "../paths.js";
import type { FolderRef } from "../secrets/model.js";
import { secretTables, type FolderRow, type SecretRow } from "../tables.js";

export const folderRepository = defineRepository("secret-manager.folders", (ctx) => {
  const t = tablesOf(ctx.storage, secretTables);
  return {
    /** A folder by path; an environment's root is not stored (its id is the environment's). */
    async find(envId: string, path: string): Promise<FolderRef | undefined> {
      if (path === ROOT_PATH) return { id: envId, path: ROOT_PATH };
      const row = await t.secretFolders.findOne({ envId, path });
      return row && { id: row.id, path: row.path };
    },

    /** The path of a folder of the environment (its root included); undefined when it is gone. */
    async pathOf(envId: string, folderId: string): Promise<string | undefined> {
      if (folderId === envId) return ROOT_PATH;
      return (await t.secretFolders.get(folderId))?.path;
    },

    /** A folder by id, wherever it is (the caller checks it may see its project). */
    get: (id: string): Promise<FolderRow | undefined> => t.secretFolders.get(id),
    byId: (envId: string, id: string): Promise<FolderRow | undefined> => t.secretFolders.findOne({ envId, id }),
    byPath: (envId: string, path: string): Promise<FolderRow | undefined> => t.secretFolders.findOne({ envId, path }),
    ofEnvironment: (envId: string): Promise<FolderRow[]> => t.secretFolders.find({ envId }),
    byIds: (ids: readonly string[]): Promise<FolderRow[]> => (ids.length ? t.secretFolders.find({ id: { in: [...ids] } }) : Promise.resolve([])),
    insertMany: (rows: FolderRow[]): Promise<void> => t.secretFolders.insertMany(rows),

    /**
     * Moves a folder and every folder below it from its path to `to` (a rename: the parent stays),
     * in one transaction, with the imports that name any of them as their source, so an import
     * keeps showing the folder it showed. False when `to` is taken (by a concurrent write too).
     */
    move: (env: EnvironmentRow, folder: FolderRow, to: string, changes: { name: string; description: string | null }, at: string): Promise<boolean> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, secretTables);
        const from = folder.path;
        if (from !== to && (await w.secretFolders.findOne({ envId: env.id, path: to }))) return false;
        const moved = (path: string) => to + path.slice(from.length);
        try {
          for (const row of await w.secretFolders.find({ envId: env.id })) {
            if (row.id === folder.id) {
              await w.secretFolders.update({ id: row.id }, { name: changes.name, path: to, description: changes.description, updatedAt: at });
            } else if (from !== to && isWithin(row.path, from)) {
              await w.secretFolders.update({ id: row.id }, { path: moved(row.path), updatedAt: at });
            }
          }
        } catch (error) {
          if (error instanceof UniqueViolationError) return false;
          throw error;
        }
        if (from === to) return true;
        for (const entry of await w.secretImports.find({ projectId: env.projectId, importEnvId: env.id })) {
          if (isWithin(entry.importPath, from)) await w.secretImports.update({ id: entry.id }, { importPath: moved(entry.importPath), updatedAt: at });
        }
        return true;
      }),

    /**
     * Removes folders with everything in them, in one transaction: their secrets (returned, for
     * the events), imports, and what other areas keep in them (`foldersRemoved`).
     */
    remove: (env: EnvironmentRow, folders: readonly FolderRef[], at: string): Promise<SecretRow[]> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, secretTables);
        const folderIds = folders.map((f) => f.id);
        const inFolders = { folderId: { in: folderIds } };
        const secrets = await w.secrets.find(inFolders);
        await w.secrets.delete(inFolders);
        await w.secretImports.delete(inFolders);
        await w.secretFolders.delete({ id: { in: folderIds } });
        await tx.emit(foldersRemoved, { projectId: env.projectId, envId: env.id, folderIds, at });
        return secrets;
      }),
  };
});
