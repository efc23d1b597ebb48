import type { EnvironmentRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { environmentRepository } from "../environments/repository.js";
import { folderRepository } from "../folders/repository.js";
import type { FolderRef } from "../secrets/model.js";
import { secretRepository } from "../secrets/repository.js";
import type { ImportedSecrets } from "../secrets/schemas.js";
import { sortSecrets } from "../secrets/view.js";
import { presentRow, type ReadView } from "../secrets/visibility.js";
import type { SecretImportRow } from "../tables.js";
import { importRepository } from "./repository.js";

/** A live import's source folder; undefined when its environment was deleted or its folder is gone. */
export async function importSource(
  ctx: Context,
  entry: SecretImportRow,
  envs: ReadonlyMap<string, EnvironmentRow>,
): Promise<{ env: EnvironmentRow; folder: FolderRef } | undefined> {
  const env = envs.get(entry.importEnvId);
  const folder = env && (await ctx.repo(folderRepository).find(env.id, entry.importPath));
  return env && folder ? { env, folder } : undefined;
}

/**
 * What the imports of `folders` show the caller: per import, the source's secrets it may describe
 * (checked against the source's own environment and path).
 */
export async function importedSecrets(
  ctx: Context,
  view: Omit<ReadView, "environment">,
  folders: readonly FolderRef[],
  principalId: string | undefined,
): Promise<ImportedSecrets[]> {
  const entries = await ctx.repo(importRepository).ofFolders(folders);
  if (entries.length === 0) return [];
  const envs = await ctx.repo(environmentRepository).liveOf(view.projectId);
  const out: ImportedSecrets[] = [];
  for (const entry of entries) {
    const source = await importSource(ctx, entry, envs);
    if (!source) continue;
    const sourceView = { ...view, environment: source.env.slug };
    const rows = await ctx.repo(secretRepository).visible([source.folder.id], principalId);
    out.push({
      secretPath: source.folder.path,
      environment: source.env.slug,
      folderId: source.folder.id,
      secrets: sortSecrets(rows.flatMap((row) => presentRow(sourceView, row, source.folder) ?? [])),
    });
  }
  return out;
}
