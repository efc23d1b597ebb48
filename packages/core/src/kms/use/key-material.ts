import { defineCache, type Context } from "../../kernel/context.js";
import type { KeyAlgorithm } from "../algorithms/catalogue.js";
import { usableKey, type UsableKey } from "../algorithms/material.js";
import { cmekRepository } from "../keys/repository.js";
import type { CmekKeyRow } from "../tables.js";

/**
 * Opened key versions by `keyId:version`. A version's material never changes (a rewrap re-seals
 * it, the bytes stay), so an entry never goes stale; a deleted key's entries are never asked for
 * again, since its row is gone. Parsing an RSA key costs more than using it, hence the cache.
 */
const usableKeys = defineCache<UsableKey>({ name: "kms-usable-keys", capacity: 1024 });

/** One version of the key, ready to use; undefined when the key has no such version. */
export async function usableVersion(ctx: Context, key: CmekKeyRow, version: number): Promise<UsableKey | undefined> {
  const cache = ctx.caches.get(usableKeys);
  const cacheKey = `${key.id}:${version}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const repo = ctx.repo(cmekRepository);
  const row = await repo.version(key.id, version);
  if (!row) return undefined;
  const usable = usableKey(key.algorithm as KeyAlgorithm, await repo.open(row));
  cache.set(cacheKey, usable);
  return usable;
}

/**
 * Whether `check` holds for some version of the key, trying the primary first and then older ones,
 * newest first: a signature or MAC made before a rotation still verifies.
 */
export async function anyVersion(ctx: Context, key: CmekKeyRow, check: (usable: UsableKey) => boolean): Promise<boolean> {
  const primary = await usableVersion(ctx, key, key.version);
  if (primary && check(primary)) return true;
  for (let version = key.version - 1; version >= 1; version--) {
    const usable = await usableVersion(ctx, key, version);
    if (usable && check(usable)) return true;
  }
  return false;
}
