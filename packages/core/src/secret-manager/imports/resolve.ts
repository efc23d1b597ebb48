import type { EnvironmentRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { environmentRepository } from "../environments/repository.js";
import { folderRepository } from "../folders/repository.js";
import type { FolderRef } from "../secrets/model.js";
import { secretRepository } from "../secrets/repository.js";
import type { ImportedSecrets, SecretObject } from "../secrets/schemas.js";
import { sortSecrets } from "../secrets/view.js";
import { presentRow, type ReadView } from "../secrets/visibility.js";
import type { SecretImportRow } from "../tables.js";
import { importRepository, MAX_IMPORT_DEPTH } from "./repository.js";

/** A folder an import shows secrets of, in its own environment. */
export interface ImportSource {
  env: EnvironmentRow;
  folder: FolderRef;
}

/** A live import's source folder; undefined when its environment was deleted or its folder is gone. */
export async function importSource(ctx: Context, entry: SecretImportRow, envs: ReadonlyMap<string, EnvironmentRow>): Promise<ImportSource | undefined> {
  const env = envs.get(entry.importEnvId);
  const folder = env && (await ctx.repo(folderRepository).find(env.id, entry.importPath));
  return env && folder ? { env, folder } : undefined;
}

/**
 * The folders one import shows, nearest first: its source, then what the source imports (in
 * position order, depth first), and so on — dev ← staging ← prod shows staging's secrets, then
 * prod's. A folder already on the way (`visited`, which starts with the importing folders) is
 * skipped, so a cycle of imports ends instead of looping, and no chain goes deeper than
 * MAX_IMPORT_DEPTH.
 */
export async function importChain(
  ctx: Context,
  entry: SecretImportRow,
  envs: ReadonlyMap<string, EnvironmentRow>,
  visited: Set<string>,
): Promise<ImportSource[]> {
  const chain: ImportSource[] = [];
  const imports = ctx.repo(importRepository);
  const walk = async (current: SecretImportRow, depth: number): Promise<void> => {
    const source = await importSource(ctx, current, envs);
    if (!source || visited.has(source.folder.id)) return;
    visited.add(source.folder.id);
    chain.push(source);
    if (depth + 1 >= MAX_IMPORT_DEPTH) return;
    for (const nested of await imports.ofFolders([source.folder])) await walk(nested, depth + 1);
  };
  await walk(entry, 0);
  return chain;
}

/**
 * What the imports of `folders` show the caller: per import, the secrets it may describe of the
 * import's source and of what that source imports in turn (each checked against its own
 * environment and path). A name shows once per import, from the nearest folder that has it.
 * `overridesOf`: whose personal overrides take their shared secrets' place; undefined for shared
 * secrets only (Infisical's default for imports).
 */
export async function importedSecrets(
  ctx: Context,
  view: Omit<ReadView, "environment">,
  folders: readonly FolderRef[],
  overridesOf: string | undefined,
): Promise<ImportedSecrets[]> {
  const entries = await ctx.repo(importRepository).ofFolders(folders);
  if (entries.length === 0) return [];
  const envs = await ctx.repo(environmentRepository).liveOf(view.projectId);
  const secrets = ctx.repo(secretRepository);
  const out: ImportedSecrets[] = [];
  for (const entry of entries) {
    const chain = await importChain(ctx, entry, envs, new Set(folders.map((f) => f.id)));
    if (chain.length === 0) continue;
    const shown = new Set<string>();
    const items: SecretObject[] = [];
    for (const { env, folder } of chain) {
      const sourceView = { ...view, environment: env.slug };
      const level = (await secrets.visible([folder.id], overridesOf, undefined, view.cipher)).flatMap((row) => presentRow(sourceView, row, folder) ?? []);
      for (const secret of sortSecrets(level)) {
        if (shown.has(secret.secretKey)) continue;
        shown.add(secret.secretKey);
        items.push(secret);
      }
    }
    const [source] = chain;
    out.push({ secretPath: source.folder.path, environment: source.env.slug, folderId: source.folder.id, secrets: items });
  }
  return out;
}
