import { liveEnvironments } from "../environments/lookup.js";
import { findFolder } from "../folders/tree.js";
import type { FolderRef } from "../secrets/model.js";
import { visibleRows } from "../secrets/rows.js";
import type { ImportedSecrets } from "../secrets/schemas.js";
import { sortSecrets } from "../secrets/serialize.js";
import { presentRow, type ReadView } from "../secrets/visibility.js";
import type { SecretManagerRow } from "../tables.js";
import type { AccessRow } from "../../access/tables.js";
import type { AppStorage as Storage } from "../../schema.js";

export type SecretImportRow = SecretManagerRow<"secretImports">;

/** The imports of some folders: the folders' order first, then each folder's import positions. */
export async function importsOf(storage: Storage, folders: readonly FolderRef[]): Promise<SecretImportRow[]> {
  if (folders.length === 0) return [];
  const rows = await storage.tables.secretImports.find({ folderId: { in: folders.map((f) => f.id) } }, { orderBy: [["position", "asc"]] });
  const order = new Map(folders.map((f, i) => [f.id, i]));
  return rows.sort((a, b) => order.get(a.folderId)! - order.get(b.folderId)! || a.position - b.position);
}

/** A live import's source folder; undefined when its environment was deleted or its folder is gone. */
export async function importSource(
  storage: Storage,
  entry: SecretImportRow,
  envs: ReadonlyMap<string, AccessRow<"environments">>,
): Promise<{ env: AccessRow<"environments">; folder: FolderRef } | undefined> {
  const env = envs.get(entry.importEnvId);
  const folder = env && (await findFolder(storage, env.id, entry.importPath));
  return env && folder ? { env, folder } : undefined;
}

/**
 * What the imports of `folders` show the caller: per import, the source's secrets it may describe
 * (checked against the source's own environment and path).
 */
export async function importedSecrets(
  storage: Storage,
  view: Omit<ReadView, "environment">,
  folders: readonly FolderRef[],
  principalId: string | undefined,
): Promise<ImportedSecrets[]> {
  const entries = await importsOf(storage, folders);
  if (entries.length === 0) return [];
  const envs = await liveEnvironments(storage, view.projectId);
  const out: ImportedSecrets[] = [];
  for (const entry of entries) {
    const source = await importSource(storage, entry, envs);
    if (!source) continue;
    const sourceView = { ...view, environment: source.env.slug };
    const rows = await visibleRows(storage, [source.folder.id], principalId);
    out.push({
      secretPath: source.folder.path,
      environment: source.env.slug,
      folderId: source.folder.id,
      secrets: sortSecrets(rows.flatMap((row) => presentRow(sourceView, row, source.folder) ?? [])),
    });
  }
  return out;
}
