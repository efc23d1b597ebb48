import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { mapPaced } from "../../kernel/pace.js";
import { assertTagIds } from "../tags/lookup.js";
import { insertSecrets, newSecretFrom, planCreates } from "./create.js";
import type { SecretRow } from "../tables.js";
import { decodeSecret, sealContent, versionOf, type MetadataItem, type PlainSecret, type SecretChanges, type SecretType } from "./model.js";
import { tagSlugsOf } from "./view.js";
import { requireReadsForNamesInUse } from "./names-in-use.js";
import { requireCouldDescribe, requireSecretChange } from "./visibility.js";
import { assertDistinct, describeKey, groupByKind, resolveFolders, type WriteScope } from "./write-scope.js";

export interface SecretUpdate {
  secretPath: string;
  key: string;
  type: SecretType;
  changes: SecretChanges;
}

/** What happens to a secret the batch names but that does not exist. */
export type MissingMode = "failOnNotFound" | "ignore" | "upsert";

interface PlannedUpdate {
  index: number;
  row: SecretRow;
  current: PlainSecret;
  next: PlainSecret;
}

/** A secret a write changed: as it now is, and as it was (none when the write created it). */
export interface WrittenSecret {
  secret: PlainSecret;
  before?: PlainSecret;
}

/**
 * Updates secrets, all or nothing: every check runs before the first write. Returns, per item,
 * the secret as it now is and was (undefined for a missing one skipped by `ignore`).
 *
 * Order of refusals: a name the caller could never describe is 403 before anything is looked up
 * (whether it exists is none of its business); then missing folders and secrets 404; then every
 * named secret is authorized, changed or not, as it is and as it will be (403), and a rename into a
 * name a proxied service's credential uses takes reading the value (403, names-in-use.ts); then
 * name conflicts (400).
 */
export async function updateSecrets(w: WriteScope, items: readonly SecretUpdate[], mode: MissingMode): Promise<(WrittenSecret | undefined)[]> {
  await mapPaced(items, w.pace, (item) => {
    requireCouldDescribe(w.access, w.env.slug, item.secretPath, item.key);
    const newKey = item.changes.newKey;
    if (newKey !== undefined && newKey !== item.key) requireCouldDescribe(w.access, w.env.slug, item.secretPath, newKey);
  });
  const folders = await resolveFolders(w, items.map((i) => i.secretPath));
  await assertDistinct(items, w.pace);
  assertTagIds(w.tags, items.flatMap((i) => i.changes.tagIds ?? []));

  const planned: PlannedUpdate[] = [];
  const missing: { index: number; item: SecretUpdate }[] = [];
  const conflicts: string[] = [];
  const indexOf = new Map(items.map((item, index) => [item, index]));
  for (const group of groupByKind(w, items, folders)) {
    const newKeys = group.items.flatMap((i) => (i.changes.newKey !== undefined && i.changes.newKey !== i.key ? [i.changes.newKey] : []));
    const names = [...group.items.map((i) => i.key), ...newKeys];
    const hashOf = new Map(await mapPaced(names, w.pace, (k) => [k, w.cipher.blindIndex(k)] as const));
    const rows = w.cipher.current(await w.secrets.ofKind(group.folder.id, w.cipher.storedIndexes([...hashOf.keys()], [...hashOf.values()]), group, { forUpdate: true }));
    const byHash = new Map(rows.map((r) => [r.keyHash, r]));
    // A new name may be neither an existing secret's nor another item's final name.
    const finalNames = new Set<string>();
    await mapPaced(group.items, w.pace, (item) => {
      const finalKey = item.changes.newKey ?? item.key;
      const renamedOntoExisting = finalKey !== item.key && byHash.has(hashOf.get(finalKey)!);
      if (renamedOntoExisting || finalNames.has(finalKey)) conflicts.push(describeKey(item.secretPath, finalKey));
      finalNames.add(finalKey);
      const row = byHash.get(hashOf.get(item.key)!);
      if (!row) {
        missing.push({ index: indexOf.get(item)!, item });
        return;
      }
      const current = decodeSecret(w.cipher, row, group.folder);
      planned.push({ index: indexOf.get(item)!, row, current, next: applyChanges(current, item.changes, w) });
    });
  }
  // Groups were read in lock order; everything after goes in the order of the items.
  planned.sort((a, b) => a.index - b.index);
  missing.sort((a, b) => a.index - b.index);
  if (missing.length && mode === "failOnNotFound") {
    const names = missing.map(({ item }) => describeKey(item.secretPath, item.key));
    throw new NotFoundError(`Secret${names.length > 1 ? "s" : ""} not found: ${names.join(", ")}`);
  }
  const environment = w.env.slug;
  await mapPaced(planned, w.pace, ({ current, next }) =>
    requireSecretChange(w.access, { environment, secret: current }, { environment, secret: next }, w.tags),
  );
  await requireReadsForNamesInUse(w, planned);
  if (conflicts.length) throw new BadRequestError(`A secret with this name already exists: ${conflicts.join(", ")}`);

  const changed = planned.filter((p) => !sameSecret(p.current, p.next));
  const upserts = mode === "upsert" ? missing : [];
  const created = await planCreates(
    w,
    // An upserted secret takes its final name.
    upserts.map(({ item }) => newSecretFrom({ secretPath: item.secretPath, key: item.changes.newKey ?? item.key, type: item.type }, item.changes)),
    // The group reads above covered every final name, and a taken one was refused as a conflict.
    true,
  );

  const writes = await mapPaced(changed, w.pace, (update) => writeOf(w, update));
  if (!(await w.secrets.updateMany(writes))) {
    const which = changed.length === 1 ? `Secret '${changed[0].current.key}' was` : "A secret of the batch was";
    throw new BadRequestError(`${which} changed by another request; retry`);
  }
  if (writes.length) await w.secrets.fileVersions(await mapPaced(writes, w.pace, (write) => versionOf(write.row)));
  await insertSecrets(w, created);

  const results: (WrittenSecret | undefined)[] = items.map(() => undefined);
  for (const p of planned) results[p.index] = { secret: p.next, before: p.current };
  upserts.forEach(({ index }, i) => (results[index] = { secret: created[i] }));
  return results;
}

function applyChanges(current: PlainSecret, changes: SecretChanges, w: WriteScope): PlainSecret {
  // One new object per item, completed in place once it differs: a batch makes thousands.
  const next: PlainSecret = {
    ...current,
    key: changes.newKey ?? current.key,
    value: changes.value ?? current.value,
    comment: changes.comment ?? current.comment,
    metadata: changes.metadata ?? current.metadata,
    tagIds: changes.tagIds ? [...new Set(changes.tagIds)] : current.tagIds,
    reminderNote: changes.reminderNote !== undefined ? changes.reminderNote : current.reminderNote,
    reminderRepeatDays: changes.reminderRepeatDays !== undefined ? changes.reminderRepeatDays : current.reminderRepeatDays,
    skipMultilineEncoding: changes.skipMultilineEncoding ?? current.skipMultilineEncoding,
  };
  if (sameSecret(current, next)) return current;
  next.version = current.version + 1;
  next.actor = w.author;
  next.updatedAt = w.now;
  return next;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

const sameMetadata = (a: readonly MetadataItem[], b: readonly MetadataItem[]) =>
  a.length === b.length && a.every((m, i) => m.key === b[i].key && m.value === b[i].value && m.isEncrypted === b[i].isEncrypted);

/** Whether an update changes nothing: such an item writes no version and raises no event. */
function sameSecret(a: PlainSecret, b: PlainSecret): boolean {
  return (
    a.key === b.key &&
    a.value === b.value &&
    a.comment === b.comment &&
    sameMetadata(a.metadata, b.metadata) &&
    sameList(a.tagIds, b.tagIds) &&
    a.reminderNote === b.reminderNote &&
    a.reminderRepeatDays === b.reminderRepeatDays &&
    a.skipMultilineEncoding === b.skipMultilineEncoding
  );
}

/**
 * The new state of a changed secret as a row patch (sealed again only when its content changed).
 * Written conditional on the version read (SecretRepository.updateMany), so a concurrent write
 * is refused rather than silently lost; the version row filing the state it replaces is made from `row`.
 */
function writeOf(w: WriteScope, { row, current, next }: PlannedUpdate): { row: SecretRow; patch: Partial<SecretRow> } {
  const patch: Partial<SecretRow> = {
    version: next.version,
    actor: next.actor,
    updatedAt: next.updatedAt,
    tagIds: next.tagIds,
    reminderNote: next.reminderNote,
    reminderRepeatDays: next.reminderRepeatDays,
    skipMultilineEncoding: next.skipMultilineEncoding,
  };
  // Always: a row written before a data-key rotation moves to the current key's index with its seal.
  patch.keyHash = w.cipher.blindIndex(next.key);
  const contentChanged =
    next.key !== current.key || next.value !== current.value || next.comment !== current.comment || !sameMetadata(next.metadata, current.metadata);
  if (contentChanged) Object.assign(patch, sealContent(w.cipher, next));
  w.log.record("secret:update", w.env, next.folder.path, next.key, tagSlugsOf(next.tagIds, w.tags));
  return { row, patch };
}
