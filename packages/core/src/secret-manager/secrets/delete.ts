import { NotFoundError } from "../../kernel/errors.js";
import { mapPaced } from "../../kernel/pace.js";
import type { SecretRow } from "../tables.js";
import { decodeSecret, type PlainSecret, type SecretType } from "./model.js";
import { tagSlugsOf } from "./view.js";
import { requireCouldDescribe, requireOnSecret } from "./visibility.js";
import { assertDistinct, describeKey, groupByKind, resolveFolders, type WriteScope } from "./write-scope.js";

export interface SecretRemoval {
  secretPath: string;
  key: string;
  type: SecretType;
}

/**
 * Deletes secrets, all or nothing: a missing one is 404 naming every missing key, and nothing is
 * deleted (but a name the caller could never describe is 403, whether it exists or not). Deleting a shared secret also removes the personal overrides of its name (they would
 * override nothing). Versions are kept. Returns the deleted secrets in item order.
 */
export async function deleteSecrets(w: WriteScope, items: readonly SecretRemoval[]): Promise<PlainSecret[]> {
  // A name the caller could never describe is refused before it is looked up (DESIGN.md §11).
  for (const item of items) requireCouldDescribe(w.access, w.env.slug, item.secretPath, item.key);
  const folders = await resolveFolders(w, items.map((i) => i.secretPath));
  await assertDistinct(items, w.pace);
  const found = new Map<SecretRemoval, { row: SecretRow; secret: PlainSecret }>();
  const missing: string[] = [];
  const sharedHashes = new Map<string, string[]>();
  for (const group of groupByKind(w, items, folders)) {
    const hashes = await mapPaced(group.items, w.pace, (i) => w.cipher.blindIndex(i.key));
    const stored = w.cipher.storedIndexes(group.items.map((i) => i.key), hashes);
    const rows = new Map(w.cipher.current(await w.secrets.ofKind(group.folder.id, stored, group, { forUpdate: true })).map((r) => [r.keyHash, r]));
    await mapPaced(group.items, w.pace, (item, i) => {
      const row = rows.get(hashes[i]);
      if (!row) return missing.push(describeKey(item.secretPath, item.key));
      found.set(item, { row, secret: decodeSecret(w.cipher, row, group.folder) });
    });
    if (group.type === "shared") sharedHashes.set(group.folder.id, stored);
  }
  if (missing.length) throw new NotFoundError(`Secret${missing.length > 1 ? "s" : ""} not found: ${missing.join(", ")}`);

  const deleted = items.map((item) => found.get(item)!);
  const secrets = deleted.map((d) => d.secret);
  await mapPaced(secrets, w.pace, (secret) => requireOnSecret(w.access, "delete", w.env.slug, secret, w.tags));

  await w.secrets.delete(deleted.map((d) => d.row), sharedHashes);
  for (const s of secrets) w.log.record("secret:delete", w.env, s.folder.path, s.key, tagSlugsOf(s.tagIds, w.tags));
  return secrets;
}
