import type { Storage, Table } from "../storage/table.js";
import { open, packSealed, seal, unpackSealed } from "./aead.js";
import { rootKeyMatches, sealRootKeyCheck } from "./keyring.js";
import { instanceMeta } from "./tables.js";

/**
 * A column whose values are sealed directly under the root key, with the AAD each value is
 * bound to. Areas that seal under the root key (`KeyRing.sealWithRoot`) add theirs to the list
 * the maintenance entry hands to `rewrapRootSealed`, so a rotation leaves none behind.
 */
export interface RootSealedColumn {
  /** The key the table has in the assembled schema (`storage.tables.<key>`). */
  readonly table: string;
  readonly column: string;
  /** The AAD the value was sealed with, from its row; undefined for none. */
  readonly aad: (row: Record<string, unknown>) => string | undefined;
  /** Skipped when the storage holds no such table (a feature this build does not assemble). */
  readonly optional?: boolean;
}

/** The data keys: each wrapped under the root key, bound to its own id. */
export const wrappedDataKeys: RootSealedColumn = { table: "kmsKeys", column: "wrappedKey", aad: (row) => String(row.id) };

export type RootRotationOutcome =
  /** Every value was rewrapped and the root-key check now names the new key. */
  | { readonly status: "rotated"; readonly rewrapped: Readonly<Record<string, number>> }
  /** The database already answers to the new key (an earlier run committed): nothing to do. */
  | { readonly status: "already-rotated" };

/** Neither key opens the database's root-key check. */
export class RootKeyNotRecognizedError extends Error {
  constructor() {
    super("the database was sealed under neither the current root key nor the new one");
    this.name = "RootKeyNotRecognizedError";
  }
}

/**
 * Rewraps every value sealed under `from` with `to`, and the instance's root-key check with it,
 * in ONE transaction: it commits whole or not at all, so a failure or a crash half-way leaves the
 * database answering to `from` alone, and a run after a commit finds it answering to `to`
 * (`already-rotated`). Nodes still holding `from` then refuse to start (`KeyRing.verify`).
 * Offline only: a running node keeps unwrapped data keys cached and would wrap new ones under
 * `from` — the caller makes sure none runs.
 */
export async function rewrapRootSealed(storage: Storage, from: Buffer, to: Buffer, columns: readonly RootSealedColumn[]): Promise<RootRotationOutcome> {
  if (from.equals(to)) throw new Error("the new root key is the current one");
  return storage.transaction(async (tx) => {
    const metaTable = tableOf(tx, instanceMeta.name) as Table<{ id: string; rootKeyCheck: string }>;
    const [meta] = await metaTable.find({ id: "instance" }, { forUpdate: true });
    if (!meta) throw new Error("the database holds no Strongroom instance (no root-key check)");
    if (rootKeyMatches(to, meta.rootKeyCheck)) return { status: "already-rotated" } as const;
    if (!rootKeyMatches(from, meta.rootKeyCheck)) throw new RootKeyNotRecognizedError();

    const rewrapped: Record<string, number> = {};
    for (const column of columns) {
      const table = tableOf(tx, column.table, column.optional);
      if (!table) continue;
      const rows = (await table.find({}, { orderBy: [["id", "asc"]], forUpdate: true })) as Record<string, unknown>[];
      let n = 0;
      for (const row of rows) {
        const value = row[column.column];
        if (typeof value !== "string" || value === "") continue;
        const aad = column.aad(row);
        const plain = open(from, unpackSealed(value), aad);
        // Conditional on the value read, so a writer the caller failed to stop shows up as a failure.
        const moved = await table.update({ id: row.id, [column.column]: value }, { [column.column]: packSealed(seal(to, plain, aad)) });
        if (moved !== 1) throw new Error(`${table.def.name} ${String(row.id)} changed during the rotation; is a server still running?`);
        n++;
      }
      rewrapped[table.def.name] = (rewrapped[table.def.name] ?? 0) + n;
    }
    const checked = await metaTable.update({ id: "instance", rootKeyCheck: meta.rootKeyCheck }, { rootKeyCheck: sealRootKeyCheck(to) });
    if (checked !== 1) throw new Error("the root-key check changed during the rotation; is another rotation running?");
    return { status: "rotated", rewrapped } as const;
  });
}

function tableOf(storage: Storage, key: string, optional = false): Table<Record<string, unknown>> | undefined {
  const byKey = (storage.tables as Record<string, Table<Record<string, unknown>>>)[key];
  if (byKey) return byKey;
  const byName = Object.values(storage.tables as Record<string, Table<Record<string, unknown>>>).find((t) => t.def.name === key);
  if (!byName && !optional) throw new Error(`storage holds no table ${key}`);
  return byName;
}

