import type { SecretLocation } from "../../kernel/bus.js";
import { ROOT_PATH } from "../paths.js";
import type { AppStorage as Storage } from "../../schema.js";

/**
 * The live folders that import any of `sources` (an environment id and folder path each), as
 * event locations, without duplicates. Importers in soft-deleted environments are left out.
 */
export async function importersOf(storage: Storage, sources: readonly { envId: string; path: string }[]): Promise<SecretLocation[]> {
  const found = new Map<string, SecretLocation>();
  for (const source of sources) {
    const imports = await storage.tables.secretImports.find({ importEnvId: source.envId, importPath: source.path });
    for (const entry of imports) {
      const env = await storage.tables.environments.get(entry.envId);
      if (!env || env.deletedAt) continue;
      const path = entry.folderId === entry.envId ? ROOT_PATH : (await storage.tables.secretFolders.get(entry.folderId))?.path;
      if (path === undefined) continue;
      found.set(`${env.id}:${path}`, { environment: env.slug, secretPath: path });
    }
  }
  return [...found.values()];
}
