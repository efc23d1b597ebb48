import { accessTables } from "../../access/tables.js";
import type { SecretLocation } from "../../kernel/bus.js";
import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { ROOT_PATH } from "../paths.js";
import type { FolderRef } from "../secrets/model.js";
import { secretTables, type SecretImportRow } from "../tables.js";

const tables = { environments: accessTables.environments, ...secretTables };

export const importRepository = defineRepository("secret-manager.imports", (ctx) => {
  const t = tablesOf(ctx.storage, tables);
  return {
    /** The imports of some folders: the folders' order first, then each folder's import positions. */
    async ofFolders(folders: readonly FolderRef[]): Promise<SecretImportRow[]> {
      if (folders.length === 0) return [];
      const rows = await t.secretImports.find({ folderId: { in: folders.map((f) => f.id) } }, { orderBy: [["position", "asc"]] });
      const order = new Map(folders.map((f, i) => [f.id, i]));
      return rows.sort((a, b) => order.get(a.folderId)! - order.get(b.folderId)! || a.position - b.position);
    },

    byId: (projectId: string, id: string): Promise<SecretImportRow | undefined> => t.secretImports.findOne({ id, projectId }),

    /**
     * Adds an import after the folder's others; undefined when the folder imports that source
     * already. Serialized per environment (its row stays locked until the transaction ends), so
     * two imports never share a position.
     */
    create: (entry: Omit<SecretImportRow, "position">): Promise<SecretImportRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tables);
        await w.environments.find({ id: entry.envId }, { forUpdate: true });
        const existing = await w.secretImports.find({ folderId: entry.folderId });
        if (existing.some((e) => e.importEnvId === entry.importEnvId && e.importPath === entry.importPath)) return undefined;
        const row: SecretImportRow = { ...entry, position: Math.max(0, ...existing.map((e) => e.position)) + 1 };
        await w.secretImports.insert(row);
        return row;
      }),

    delete: async (id: string): Promise<void> => {
      await t.secretImports.delete({ id });
    },

    /**
     * The live folders that import any of `sources` (an environment id and folder path each), as
     * event locations, without duplicates. Importers in soft-deleted environments are left out.
     */
    async importersOf(sources: readonly { envId: string; path: string }[]): Promise<SecretLocation[]> {
      const found = new Map<string, SecretLocation>();
      for (const source of sources) {
        for (const entry of await t.secretImports.find({ importEnvId: source.envId, importPath: source.path })) {
          const env = await t.environments.get(entry.envId);
          if (!env || env.deletedAt) continue;
          const path = entry.folderId === entry.envId ? ROOT_PATH : (await t.secretFolders.get(entry.folderId))?.path;
          if (path === undefined) continue;
          found.set(`${env.id}:${path}`, { environment: env.slug, secretPath: path });
        }
      }
      return [...found.values()];
    },
  };
});
