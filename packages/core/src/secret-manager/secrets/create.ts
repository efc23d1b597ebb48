import { BadRequestError } from "../../kernel/errors.js";
import { mapPaced } from "../../kernel/pace.js";
import { assertTagIds } from "../tags/lookup.js";
import { decodeSecret, encodeSecret, type MetadataItem, type PlainSecret, type SecretChanges, type SecretType } from "./model.js";
import { newRowId } from "./row-ids.js";
import { requireCouldDescribe, requireOnSecret } from "./visibility.js";
import { tagSlugsOf } from "./view.js";
import { assertDistinct, describeKey, groupByKind, resolveFolders, type WriteScope } from "./write-scope.js";

/** A secret to create, every field decided. */
export interface NewSecret {
  secretPath: string;
  key: string;
  type: SecretType;
  value: string;
  comment: string;
  metadata: MetadataItem[];
  tagIds: string[];
  reminderNote: string | null;
  reminderRepeatDays: number | null;
  skipMultilineEncoding: boolean;
}

/**
 * Checks everything about creating these secrets and writes nothing: folders exist (404), tags
 * exist (404), no name is taken or repeated (400), a personal override has its shared secret
 * (400), and the caller may `create` each one (403). Returns the secrets to insert.
 * `namesChecked`: the caller has just read, in this transaction, that no name is taken.
 */
export async function planCreates(w: WriteScope, items: readonly NewSecret[], namesChecked = false): Promise<PlainSecret[]> {
  if (items.length === 0) return [];
  const folders = await resolveFolders(w, items.map((i) => i.secretPath));
  assertTagIds(w.tags, items.flatMap((i) => i.tagIds));
  await assertDistinct(items, w.pace);
  const taken: string[] = [];
  const orphans: string[] = [];
  for (const group of groupByKind(w, items, folders)) {
    const hashes = await mapPaced(group.items, w.pace, (i) => w.cipher.blindIndex(i.key));
    const stored = w.cipher.storedIndexes(group.items.map((i) => i.key), hashes);
    if (!namesChecked) {
      const existing = new Set(w.cipher.current(await w.secrets.ofKind(group.folder.id, stored, group)).map((r) => r.keyHash));
      group.items.forEach((item, i) => existing.has(hashes[i]) && taken.push(describeKey(item.secretPath, item.key)));
    }
    if (group.type === "personal") {
      // An override is of a secret the caller can see: whether one exists is refused before it is
      // looked up when no secret of that name could be described there, and one it may not
      // describe is not overridden.
      for (const item of group.items) requireCouldDescribe(w.access, w.env.slug, item.secretPath, item.key);
      const sharedRows = w.cipher.current(await w.secrets.ofKind(group.folder.id, stored, { type: "shared", ownerId: "" }));
      for (const row of sharedRows) requireOnSecret(w.access, "describeSecret", w.env.slug, decodeSecret(w.cipher, row, group.folder), w.tags);
      const shared = new Set(sharedRows.map((r) => r.keyHash));
      group.items.forEach((item, i) => !shared.has(hashes[i]) && orphans.push(describeKey(item.secretPath, item.key)));
    }
  }
  if (taken.length) throw new BadRequestError(`Secret${taken.length > 1 ? "s" : ""} already exist${taken.length > 1 ? "" : "s"}: ${taken.join(", ")}`);
  if (orphans.length) throw new BadRequestError(`A personal override needs a shared secret of the same name: ${orphans.join(", ")}`);

  return mapPaced(items, w.pace, (item) => {
    const secret: PlainSecret = {
      id: newRowId(),
      folder: folders.get(item.secretPath)!,
      type: item.type,
      ownerId: item.type === "personal" ? w.principalId : "",
      key: item.key,
      value: item.value,
      comment: item.comment,
      metadata: item.metadata,
      tagIds: item.tagIds.length > 1 ? [...new Set(item.tagIds)] : item.tagIds,
      reminderNote: item.reminderNote,
      reminderRepeatDays: item.reminderRepeatDays,
      skipMultilineEncoding: item.skipMultilineEncoding,
      version: 1,
      actor: w.author,
      createdAt: w.now,
      updatedAt: w.now,
    };
    requireOnSecret(w.access, "create", w.env.slug, secret, w.tags);
    return secret;
  });
}

/** Inserts planned secrets in one statement however many there are; a first version has no earlier state to file. */
export async function insertSecrets(w: WriteScope, secrets: readonly PlainSecret[]): Promise<void> {
  if (secrets.length === 0) return;
  const rows = await mapPaced(secrets, w.pace, (s) => encodeSecret(w.cipher, s, { projectId: w.project.id, envId: w.env.id }));
  await w.secrets.insert(rows);
  for (const s of secrets) w.log.record("secret:create", w.env, s.folder.path, s.key, tagSlugsOf(s.tagIds, w.tags));
}

/**
 * A new secret from the fields a request sets, unset ones empty. Fields are copied one by one:
 * V8 adds each property that follows a spread through a slow path, microseconds a secret.
 */
export function newSecretFrom(where: { secretPath: string; key: string; type: SecretType }, changes: SecretChanges): NewSecret {
  return {
    secretPath: where.secretPath,
    key: where.key,
    type: where.type,
    value: changes.value ?? "",
    comment: changes.comment ?? "",
    metadata: changes.metadata ?? [],
    tagIds: changes.tagIds ?? [],
    reminderNote: changes.reminderNote ?? null,
    reminderRepeatDays: changes.reminderRepeatDays ?? null,
    skipMultilineEncoding: changes.skipMultilineEncoding ?? false,
  };
}

export async function createSecrets(w: WriteScope, items: readonly NewSecret[]): Promise<PlainSecret[]> {
  const secrets = await planCreates(w, items);
  await insertSecrets(w, secrets);
  return secrets;
}
