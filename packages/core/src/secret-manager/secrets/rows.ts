import type { AppStorage as Storage } from "../../schema.js";
import type { SecretRow, SecretType } from "./model.js";

/**
 * The secrets a principal sees in some folders: the shared ones, each replaced by the principal's
 * own personal override of the same name where it has one. `keyHashes` narrows to some names.
 */
export async function visibleRows(
  storage: Storage,
  folderIds: readonly string[],
  principalId: string | undefined,
  keyHashes?: readonly string[],
): Promise<SecretRow[]> {
  if (folderIds.length === 0 || keyHashes?.length === 0) return [];
  const rows = await storage.tables.secrets.find({
    folderId: folderIds.length === 1 ? folderIds[0] : { in: folderIds },
    ownerId: principalId ? { in: ["", principalId] } : "",
    ...(keyHashes ? { keyHash: keyHashes.length === 1 ? keyHashes[0] : { in: keyHashes } } : {}),
  });
  const personal = new Set(rows.filter((r) => r.type === "personal").map((r) => `${r.folderId}:${r.keyHash}`));
  return rows.filter((r) => r.type === "personal" || !personal.has(`${r.folderId}:${r.keyHash}`));
}

/** Secrets of one kind (shared, or one owner's personal overrides) in a folder, by blind index. */
export async function rowsOfKind(
  storage: Storage,
  folderId: string,
  keyHashes: readonly string[],
  kind: { type: SecretType; ownerId: string },
): Promise<SecretRow[]> {
  if (keyHashes.length === 0) return [];
  return storage.tables.secrets.find({ folderId, keyHash: { in: keyHashes }, type: kind.type, ownerId: kind.ownerId });
}
