import { BoundedCache } from "../kernel/cache.js";
import { defineCache, type Context } from "../kernel/context.js";
import { openText, packSealed, seal, unpackSealed, type Sealed } from "../crypto/aead.js";
import { hmacHex } from "../crypto/hash.js";
import { projectKeyRotation, readKeyIds } from "../access/key-rotation.js";
import type { ProjectRow } from "../access/tables.js";

/**
 * A project's secret-manager data key in use. Every seal is bound (as AAD) to the secret it
 * belongs to, so ciphertext copied onto another secret's row fails to open.
 *
 * During a data-key rotation (`@strongroom/core/maintenance`) the project has more than one
 * secret-manager key: the current one (`kmsSecretManagerKeyId`), which seals and indexes
 * everything written, and the others, which rows the rotation has not reached yet were sealed
 * and indexed with. Reads then open with whichever key sealed the row and look names up under
 * every key; outside a rotation they cost nothing more.
 */
export interface ProjectCipher {
  seal(plaintext: string, secretId: string): string;
  open(packed: string, secretId: string): string;
  /** A fresh seal as separate base64 parts, for answers that show ciphertext. */
  sealParts(plaintext: string, secretId: string): Sealed;
  /** Finds a secret by name without storing the name: HMAC under a key derived from the data key. */
  blindIndex(name: string): string;
  /** Every blind index a stored row of these names may carry: the current key's, and during a rotation the other keys'. */
  storedIndexes(names: readonly string[], current?: readonly string[]): string[];
  /** The rows with `keyHash` as the current key computes it; the very same array outside a rotation. */
  current<R extends { id: string; keyHash: string; sealed: string }>(rows: R[]): R[];
}

const aad = (secretId: string) => `secret:${secretId}`;

/** Ciphers by their data key ids, current first: a key id always names the same key. */
const cipherCache = defineCache<ProjectCipher>({ name: "project-ciphers", capacity: 1_000 });

/**
 * The last opened seal of each secret, by key ids and secret id: a list opens the same thousands
 * of seals on every read, and opening (an AES-GCM context each) is most of its cost. An entry is
 * used only for the very seal it was opened from, so it is never stale; the plaintext stays in
 * this process's memory only (never written anywhere), for a bounded number of secrets and at
 * most five minutes.
 */
const openedSeals = defineCache<{ packed: string; text: string }>({ name: "opened-seals", capacity: 50_000, ttlMs: 5 * 60_000 });

/** Blind indexes remembered per cipher: reads ask for the same few names again and again, batches for each name several times. */
const MAX_REMEMBERED_NAMES = 4_096;

export async function projectCipher(ctx: Context, project: ProjectRow): Promise<ProjectCipher> {
  const ids = readKeyIds(project.kmsSecretManagerKeyId, await projectKeyRotation(ctx, project.id), (r) => [r.toKeyId, r.fromKeyId]);
  const cacheKey = ids.join(",");
  const ciphers = ctx.caches.get(cipherCache);
  const cached = ciphers.get(cacheKey);
  if (cached) return cached;
  const keys = await Promise.all(ids.map(async (id) => ({ id, data: await ctx.keys.dataKey(ctx.storage, id), blind: await ctx.keys.blindIndexKey(ctx.storage, id) })));
  const keepMs = Math.min(ctx.config.plaintextCacheSeconds, 300) * 1000;
  const cipher = cipherOf(keys, keepMs > 0 ? { cache: ctx.caches.get(openedSeals), keepMs } : undefined, cacheKey);
  ciphers.set(cacheKey, cipher);
  return cipher;
}

/**
 * The cipher for one write of many secrets: it remembers every blind index the write computes.
 * A batch computes each name's index several times (lookup, planning, the row), and the cipher's
 * own memory holds fewer names than one batch may carry, so for a big batch it would keep none.
 * Lives as long as the write; holds nothing the shared cipher would not.
 */
export function writeCipher(cipher: ProjectCipher): ProjectCipher {
  const indexes = new Map<string, string>();
  const blindIndex = (name: string): string => {
    let hash = indexes.get(name);
    if (hash === undefined) indexes.set(name, (hash = cipher.blindIndex(name)));
    return hash;
  };
  return {
    ...cipher,
    blindIndex,
    storedIndexes: (names, current = names.map(blindIndex)) => cipher.storedIndexes(names, current),
  };
}

interface CipherKey {
  readonly id: string;
  readonly data: Buffer;
  readonly blind: Buffer;
}

interface OpenedSeals {
  readonly cache: BoundedCache<{ packed: string; text: string }>;
  /** Longest a value is served from memory (the operator's setting, within the cache's 5 minutes). */
  readonly keepMs: number;
}

function cipherOf(keys: readonly CipherKey[], opened: OpenedSeals | undefined, keyIds: string): ProjectCipher {
  const [current, ...others] = keys;
  const indexes = new BoundedCache<string>({ capacity: MAX_REMEMBERED_NAMES });
  const blindIndex = (name: string): string => {
    let hash = indexes.get(name);
    if (hash === undefined) indexes.set(name, (hash = hmacHex(current.blind, name)));
    return hash;
  };
  const open = (packed: string, secretId: string): string => {
    if (!opened) return openSeal(packed, secretId);
    const key = `${keyIds}\u0000${secretId}`;
    const now = Date.now();
    const last = opened.cache.get(key, now, opened.keepMs);
    if (last !== undefined && last.packed === packed) return last.text;
    const text = openSeal(packed, secretId);
    opened.cache.set(key, { packed, text }, { now });
    return text;
  };
  const openSeal = (packed: string, secretId: string): string => {
    const sealed = unpackSealed(packed);
    try {
      return openText(current.data, sealed, aad(secretId));
    } catch (failed) {
      // GCM refuses a wrong key outright, so trying the next key never yields garbage.
      for (const other of others) {
        try {
          return openText(other.data, sealed, aad(secretId));
        } catch {
          /* not this one */
        }
      }
      throw failed;
    }
  };
  return {
    seal: (plaintext, secretId) => packSealed(seal(current.data, plaintext, aad(secretId))),
    open,
    sealParts: (plaintext, secretId) => seal(current.data, plaintext, aad(secretId)),
    blindIndex,
    // `current`: the names' current indexes when the caller has them already (batches compute them paced).
    storedIndexes: (names, current = names.map(blindIndex)) =>
      others.length === 0 ? [...current] : [...current, ...others.flatMap((k) => names.map((name) => hmacHex(k.blind, name)))],
    current(rows) {
      if (others.length === 0) return rows;
      return rows.map((row) => {
        const name = (JSON.parse(open(row.sealed, row.id)) as [string])[0];
        const keyHash = blindIndex(name);
        return keyHash === row.keyHash ? row : { ...row, keyHash };
      });
    },
  };
}
