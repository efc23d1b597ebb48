import { schema as coreSchema, type Storage, type TableDef, type TableSet } from "@strongroom/core";
import type { Kysely } from "kysely";
import type { Dialect } from "./dialect.js";
import { Scope } from "./scope.js";
import { kyselyTable, tableStatements } from "./table.js";

export interface KyselyStorageOptions {
  /** Reported as `Storage.kind`, e.g. "sqlite" or "postgres". */
  kind: string;
  /** An already migrated database (see `migrate`); `close()` destroys it. */
  db: Kysely<any>;
  dialect: Dialect;
  /** Table definitions keyed as `Storage.tables`; core's schema unless a test extends it. */
  schema?: Record<string, TableDef>;
  /**
   * Runs a read outside any transaction at once, without queueing for the connection, or
   * answers undefined when it cannot (a transaction is open on the connection). For a driver
   * that executes synchronously (better-sqlite3): it saves Kysely's connection hand-over, which
   * costs as much as the lookup.
   */
  readNow?: ReadNow;
}

export type ReadNow = (sql: string, parameters: readonly unknown[]) => Record<string, unknown>[] | undefined;

export function createKyselyStorage(options: KyselyStorageOptions): Storage {
  const { kind, db, dialect, schema = coreSchema, readNow } = options;
  const statements = Object.entries(schema).map(([key, def]) => [key, tableStatements(def)] as const);

  const open = (scope: Scope): Storage => {
    const storage: Storage = {
      kind,
      tables: Object.fromEntries(statements.map(([key, table]) => [key, kyselyTable(table, scope)])) as unknown as TableSet,
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
