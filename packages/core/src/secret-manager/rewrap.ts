import { open, packSealed, seal, unpackSealed } from "../crypto/aead.js";
import { hmacHex } from "../crypto/hash.js";
import type { Context } from "../kernel/context.js";
import { tablesOf, UniqueViolationError } from "../storage/table.js";
import { secretTables } from "./tables.js";

/** A secret-manager data key with the blind-index key derived from it. */
export interface SecretKey {
  readonly data: Buffer;
  readonly blind: Buffer;
}

export const secretKeyOf = async (ctx: Context, keyId: string): Promise<SecretKey> => ({
  data: await ctx.keys.dataKey(ctx.storage, keyId),
  blind: await ctx.keys.blindIndexKey(ctx.storage, keyId),
});

/**
 * What a stored secret (or version) must become to be sealed and indexed under `to` alone:
 * undefined when it already is. A row sealed under `from` is opened and sealed again (same
 * binding); its blind index is recomputed from the name inside. A row that opens under neither
 * key is an error, never skipped.
 */
export function rewrapSecretRow(
  from: SecretKey,
  to: SecretKey,
  row: { readonly sealed: string; readonly keyHash: string },
  secretId: string,
): { sealed: string; keyHash: string } | undefined {
  const aad = `secret:${secretId}`;
  const sealed = unpackSealed(row.sealed);
  let plain: Buffer;
  let underNew = true;
  try {
    plain = open(to.data, sealed, aad);
  } catch {
    try {
      plain = open(from.data, sealed, aad);
      underNew = false;
    } catch {
      throw new Error(`secret ${secretId} opens under neither the old nor the new data key`);
    }
  }
  const name = (JSON.parse(plain.toString("utf8")) as [string])[0];
  const keyHash = hmacHex(to.blind, name);
  if (underNew && keyHash === row.keyHash) return undefined;
  return { sealed: underNew ? row.sealed : packSealed(seal(to.data, plain, aad)), keyHash };
}

export interface SweepCount {
  /** Rows rewritten. */
  moved: number;
  /** Rows a concurrent write changed between reading and rewriting: the next pass sees them again. */
  raced: number;
}

/**
 * One pass of a data-key rotation over a project's secrets and their versions, `batchSize` rows
 * at a time: each batch is prepared (decrypt, encrypt, HMAC) outside any transaction and written
 * in one short transaction of conditional updates, so readers and writers are never held long
 * and a row another request changed meanwhile is left for the next pass, not overwritten.
 */
export async function sweepSecrets(ctx: Context, projectId: string, from: SecretKey, to: SecretKey, batchSize: number): Promise<SweepCount> {
  const t = tablesOf(ctx.storage, secretTables);
  const count: SweepCount = { moved: 0, raced: 0 };
  for (let cursor = ""; ; ) {
    const rows = await t.secrets.find({ projectId, id: { gt: cursor } }, { orderBy: [["id", "asc"]], limit: batchSize });
    if (rows.length === 0) break;
    cursor = rows[rows.length - 1].id;
    const changes = rows.flatMap((row) => {
      const patch = rewrapSecretRow(from, to, row, row.id);
      return patch ? [{ row, patch }] : [];
    });
    if (changes.length === 0) continue;
    await ctx.withTransaction(async (tx) => {
      const w = tablesOf(tx.storage, secretTables);
      for (const { row, patch } of changes) {
        try {
          const n = await w.secrets.update({ id: row.id, version: row.version, sealed: row.sealed }, patch);
          count[n === 1 ? "moved" : "raced"]++;
        } catch (thrown) {
          if (!(thrown instanceof UniqueViolationError)) throw thrown;
          throw new Error(
            `two secrets of one name in folder ${row.folderId} (written on nodes that had not yet noticed the rotation); delete one and run the rotation again`,
          );
        }
      }
    });
  }
  for (let cursor = ""; ; ) {
    const rows = await t.secretVersions.find({ projectId, id: { gt: cursor } }, { orderBy: [["id", "asc"]], limit: batchSize });
    if (rows.length === 0) break;
    cursor = rows[rows.length - 1].id;
    const changes = rows.flatMap((row) => {
      const patch = rewrapSecretRow(from, to, row, row.secretId);
      return patch ? [{ row, patch }] : [];
    });
    if (changes.length === 0) continue;
    await ctx.withTransaction(async (tx) => {
      const w = tablesOf(tx.storage, secretTables);
      for (const { row, patch } of changes) count[(await w.secretVersions.update({ id: row.id, sealed: row.sealed }, patch)) === 1 ? "moved" : "raced"]++;
    });
  }
  return count;
}
