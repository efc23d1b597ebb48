import { mapPaced, pacer, turn, type Pace } from "../kernel/pace.js";
import { canonicalDigest, canonicalJson } from "./chain.js";
import { batchItemsOf, inputMetadataOf, pickSafe, secretKeysOf } from "./drafts.js";
import { BLIND_INDEX_LENGTH, newSalt, type AuditKeys } from "./keys.js";
import { secretKeyIndexFrom } from "./rows.js";
import type { AuditMetadata } from "./schemas.js";

/**
 * The costly part of a change's entry, made before the change's transaction: everything its input
 * decides (metadata, the blind index of each secret key it names and, for a batch, the sealed
 * metadata with its digest). A batch of 1,000 names costs 3–10 ms of CPU (by load), which inside the
 * transaction held the database (and the event loop) for every other write; what stays inside is
 * what depends on the chain's head: the entry's number, the hash of its small header, the insert.
 */

export interface SealedMetadata {
  readonly salt: string;
  readonly digest: string;
  readonly sealed: string;
}

/** Salts, digests and seals `metadata` under `keys`, from its canonical text. */
export function sealNow(keys: AuditKeys, metadata: AuditMetadata): SealedMetadata {
  const canonical = canonicalJson(metadata);
  const salt = newSalt();
  return { salt, digest: canonicalDigest(salt, canonical), sealed: keys.sealMetadata(salt, canonical) };
}

/**
 * What was made ahead, by the very object it was made for: metadata and key lists prepared here
 * are frozen, so an object found here still holds what was sealed or indexed, and an entry whose
 * metadata the answer or an error extended (a copy, `withOutcome`) is sealed afresh.
 */
const sealedAhead = new WeakMap<AuditKeys, WeakMap<AuditMetadata, SealedMetadata>>();
const indexedAhead = new WeakMap<AuditKeys, WeakMap<readonly string[], string | null>>();

function mapOf<K extends object, V>(maps: WeakMap<AuditKeys, WeakMap<K, V>>, keys: AuditKeys): WeakMap<K, V> {
  let map = maps.get(keys);
  if (map === undefined) maps.set(keys, (map = new WeakMap()));
  return map;
}

export const sealedAheadOf = (keys: AuditKeys, metadata: AuditMetadata): SealedMetadata | undefined => sealedAhead.get(keys)?.get(metadata);

/** The blind indexes of the secret keys an entry names, space-delimited (see `secretKeyIndexFrom`): made ahead, or now. */
export function secretKeyIndex(keys: AuditKeys, secretKeys: readonly string[]): string | null {
  const ahead = indexedAhead.get(keys);
  if (ahead?.has(secretKeys)) return ahead.get(secretKeys)!;
  return secretKeyIndexFrom(secretKeys.map(keys.blindIndex));
}

/**
 * `secretKeyIndexFrom(secretKeys.map(keys.blindIndex))` for a batch's names, written into one
 * buffer (one string at the end, none per name) and not remembered name by name: remembering a
 * thousand new names cost about half as much as their indexes (see `batchIndexes` for repeats).
 */
export async function batchKeyIndex(keys: AuditKeys, secretKeys: readonly string[], pace: Pace): Promise<string | null> {
  if (secretKeys.length === 0) return null;
  const step = BLIND_INDEX_LENGTH + 1;
  const text = Buffer.allocUnsafe(1 + step * secretKeys.length);
  text[0] = 0x20;
  for (let i = 0; i < secretKeys.length; i++) {
    keys.blindIndexInto(secretKeys[i], text, 1 + step * i);
    text[step * (i + 1)] = 0x20;
    const wait = pace();
    if (wait) await wait;
  }
  return text.toString("latin1");
}

/**
 * The key index of the last few batches, by their list of names: a client syncing the same file
 * sends the same names again (each name was remembered by `keys.blindIndex` before, costing more).
 */
const batchIndexes = new WeakMap<AuditKeys, Map<string, string | null>>();
const BATCHES_KEPT = 8;

async function batchKeyIndexKept(keys: AuditKeys, secretKeys: readonly string[], pace: Pace): Promise<string | null> {
  let kept = batchIndexes.get(keys);
  if (kept === undefined) batchIndexes.set(keys, (kept = new Map()));
  const names = JSON.stringify(secretKeys);
  let index = kept.get(names);
  if (index === undefined) {
    index = await batchKeyIndex(keys, secretKeys, pace);
    if (kept.size >= BATCHES_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(names, index);
  }
  return index;
}

/** An entry's input part, prepared for the call whose (parsed) input is `input`. */
export interface PreparedInput {
  readonly input: unknown;
  readonly metadata: AuditMetadata;
  readonly secretKeys: readonly string[];
}

/**
 * From this many batch items the metadata is sealed ahead: a batch's answer adds nothing to it,
 * while a single write's answer names what it made (the seal would be made again).
 */
const SEAL_AHEAD_ITEMS = 32;

/**
 * Prepares an entry's input part, handing the event loop back between items and names (never
 * when the call runs inside a transaction already).
 */
export async function prepareInput(keys: AuditKeys, input: unknown, inTransaction: boolean): Promise<PreparedInput> {
  const items = batchItemsOf(input);
  const batch = items.length >= SEAL_AHEAD_ITEMS;
  // A batch's paced work before and after this (validation, the rehearsal) has its own slices:
  // without a turn at each end, their tails and this work would hold the event loop as one stretch.
  if (batch && !inTransaction) await turn();
  const pace = pacer(inTransaction);
  const metadata = Object.freeze(inputMetadataOf(input, await mapPaced(items, pace, pickSafe)));
  const secretKeys = Object.freeze(secretKeysOf(input));
  if (secretKeys.length > 0) {
    const index = secretKeys.length >= SEAL_AHEAD_ITEMS ? await batchKeyIndexKept(keys, secretKeys, pace) : secretKeyIndexFrom(secretKeys.map(keys.blindIndex));
    mapOf(indexedAhead, keys).set(secretKeys, index);
  }
  if (batch) {
    mapOf(sealedAhead, keys).set(metadata, sealNow(keys, metadata));
    if (!inTransaction) await turn();
  }
  return { input, metadata, secretKeys };
}
