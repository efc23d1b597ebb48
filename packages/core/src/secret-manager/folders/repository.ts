import type { EnvironmentRow } from "../../access/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { foldersRemoved } from "../hooks.js";
import { ROOT_PATH } from "../paths.js";
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

    byId: (envId: string, id: string): Promise<FolderRow | undefined> => t.secretFolders.findOne({ envId, id }),
    byPath: (envId: string, path: string): Promise<FolderRow | undefined> => t.secretFolders.findOne({ envId, path }),
    ofEnvironment: (envId: string): Promise<FolderRow[]> => t.secretFolders.find({ envId }),
    byIds: (ids: readonly string[]): Promise<FolderRow[]> => (ids.length ? t.secretFolders.find({ id: { in: [...ids] } }) : Promise.resolve([])),
    insertMany: (rows: FolderRow[]): Promise<void> => t.secretFolders.insertMany(rows),

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
