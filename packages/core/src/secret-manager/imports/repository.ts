import { accessTables } from "../../access/tables.js";
import type { SecretLocation } from "../../kernel/bus.js";
import { defineRepository } from "../../kernel/context.js";
import { tablesOf, type TablesOf } from "../../storage/table.js";
import { ROOT_PATH } from "../paths.js";
import type { FolderRef } from "../secrets/model.js";
import { secretTables, type SecretImportRow } from "../tables.js";

const tables = { environments: accessTables.environments, ...secretTables };

/** How many imports deep a chain is followed (Infisical's bound): an import of an import of … stops there. */
export const MAX_IMPORT_DEPTH = 10;

/** Gives `order` the positions 1…n, writing only the rows whose position changes. */
async function renumber(w: TablesOf<typeof tables>, order: readonly SecretImportRow[], at: string): Promise<void> {
  for (const [index, row] of order.entries()) {
    if (row.position !== index + 1) await w.secretImports.update({ id: row.id }, { position: index + 1, updatedAt: at });
  }
}

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

    /** The imports of the folders, by folder id (each in position order), for walking imports of imports. */
    async byFolder(folderIds: readonly string[]): Promise<Map<string, SecretImportRow[]>> {
      const byFolder = new Map<string, SecretImportRow[]>();
      if (folderIds.length === 0) return byFolder;
      const rows = await t.secretImports.find({ folderId: { in: [...folderIds] } }, { orderBy: [["position", "asc"]] });
      for (const row of rows) byFolder.set(row.folderId, [...(byFolder.get(row.folderId) ?? []), row]);
      return byFolder;
    },

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

    /**
     * Changes an import's source and, with `position`, moves it there among its folder's imports
     * (clamped to 1…n; the others shift). Positions stay 1…n in one transaction under the
     * environment's row lock, as `create` takes it. Undefined when the import is gone, or when
     * the folder imports the new source already (`duplicate`).
     */
    update: (
      entry: SecretImportRow,
      changes: { importEnvId: string; importPath: string; position?: number; updatedAt: string },
    ): Promise<SecretImportRow | "duplicate" | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tables);
        await w.environments.find({ id: entry.envId }, { forUpdate: true });
        const siblings = await w.secretImports.find({ folderId: entry.folderId }, { orderBy: [["position", "asc"]] });
        const current = siblings.find((s) => s.id === entry.id);
        if (!current) return undefined;
        if (siblings.some((s) => s.id !== entry.id && s.importEnvId === changes.importEnvId && s.importPath === changes.importPath)) return "duplicate";
        const others = siblings.filter((s) => s.id !== entry.id);
        const at = Math.min(Math.max((changes.position ?? current.position) - 1, 0), others.length);
        const order = [...others.slice(0, at), current, ...others.slice(at)];
        await renumber(w, order, changes.updatedAt);
        const updated = { ...current, importEnvId: changes.importEnvId, importPath: changes.importPath, position: at + 1, updatedAt: changes.updatedAt };
        await w.secretImports.update({ id: entry.id }, { importEnvId: updated.importEnvId, importPath: updated.importPath, updatedAt: updated.updatedAt });
        return updated;
      }),

    /** Removes an import; the folder's later imports move up, so positions stay 1…n. */
    delete: (entry: SecretImportRow, at: string): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tables);
        await w.environments.find({ id: entry.envId }, { forUpdate: true });
        await w.secretImports.delete({ id: entry.id });
        await renumber(w, await w.secretImports.find({ folderId: entry.folderId }, { orderBy: [["position", "asc"]] }), at);
      }),

    /**
     * The live folders that import any of `sources` (an environment id and folder path each),
     * directly or through imports of imports (dev ← staging ← prod: a change in prod reaches
     * both), as event locations, without duplicates. Importers in soft-deleted environments are
     * left out; a cycle of imports ends where it started.
     */
    async importersOf(sources: readonly { envId: string; path: string }[]): Promise<SecretLocation[]> {
      const found = new Map<string, SecretLocation>();
      const seen = new Set(sources.map((s) => `${s.envId}\u0000${s.path}`));
      for (let frontier = [...sources], depth = 0; frontier.length && depth < MAX_IMPORT_DEPTH; depth++) {
        const next: { envId: string; path: string }[] = [];
        for (const source of frontier) {
          for (const entry of await t.secretImports.find({ importEnvId: source.envId, importPath: source.path })) {
            const env = await t.environments.get(entry.envId);
            if (!env || env.deletedAt) continue;
            const path = entry.folderId === entry.envId ? ROOT_PATH : (await t.secretFolders.get(entry.folderId))?.path;
            if (path === undefined) continue;
            const key = `${env.id}\u0000${path}`;
            if (seen.has(key)) continue;
            seen.add(key);
            found.set(key, { environment: env.slug, secretPath: path });
            next.push({ envId: env.id, path });
          }
        }
        frontier = next;
      }
      return [...found.values()];
    },
  };
});
