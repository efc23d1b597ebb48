import type { Schema, Storage, TablesOf } from "@strongroom/core/storage";
import type { Kysely } from "kysely";
import type { Dialect } from "./dialect.js";
import { Scope, type ReadNow } from "./scope.js";
import { kyselyTable, tableStatements } from "./table.js";

export interface KyselyStorageOptions<S extends Schema> {
  /** Reported as `Storage.kind`, e.g. "sqlite" or "postgres". */
  kind: string;
  /** An already migrated database (see `migrate`); `close()` destroys it. */
  db: Kysely<any>;
  dialect: Dialect;
  /** Table definitions keyed as `Storage.tables`. */
  schema: S;
  /** See `ReadNow`. */
  readNow?: ReadNow;
}

export function createKyselyStorage<S extends Schema>(options: KyselyStorageOptions<S>): Storage<S> {
  const { kind, db, dialect, schema, readNow } = options;
  const statements = Object.entries(schema).map(([key, def]) => [key, tableStatements(def)] as const);

  const open = (scope: Scope): Storage<S> => {
    const storage: Storage<S> = {
      kind,
      schema,
      inTransaction: scope.inTransaction,
      tables: Object.fromEntries(statements.map(([key, table]) => [key, kyselyTable(table, scope)])) as unknown as TablesOf<S>,
      transaction: scope.inTransaction
        ? (fn) => fn(storage)
        : (fn) =>
            db.transaction().execute(async (trx) => {
              const inner = new Scope(trx, dialect, true, undefined);
              try {
                return await fn(open(inner));
              } finally {
                inner.finished = true;
              }
            }),
      close: scope.inTransaction
        ? () => Promise.reject(new Error("close the storage, not a transaction"))
        : () => db.destroy(),
    };
    return storage;
  };

  return open(new Scope(db, dialect, false, readNow));
}
