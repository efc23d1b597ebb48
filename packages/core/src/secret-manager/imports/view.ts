import type { EnvironmentRow } from "../../access/tables.js";
import type { SecretImportRow } from "../tables.js";

/** `importEnv` is the source environment; blank when it is gone. */
export const toSecretImport = (row: SecretImportRow, importEnv: EnvironmentRow | undefined) => ({
  id: row.id,
  folderId: row.folderId,
  importPath: row.importPath,
  importEnv: { id: row.importEnvId, name: importEnv?.name ?? "", slug: importEnv?.slug ?? "" },
  position: row.position,
  isReplication: row.isReplication,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});
