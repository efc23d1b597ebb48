import { schema as coreSchema, type Storage, type TableDef, type TableSet } from "@strongroom/core";
import type { Kysely } from "kysely";
import type { Dialect } from "./dialect.js";
import { Scope } from "./scope.js";
import { kyselyTable } from "./table.js";

export interface KyselyStorageOptions {
  /** Reported as `Storage.kind`, e.g. "sqlite" or "postgres". */
  kind: string;
  /** An already migrated database (see `migrate`); `close()` destroys it. */
  db: Kysely<any>;
  dialect: Dialect;
  /** Table definitions keyed as `Storage.tables`; core's schema unless a test extends it. */
  schema?: Record<string, TableDef>;
}

export function createKyselyStorage(options: KyselyStorageOptions): Storage {
  const { kind, db, dialect, schema = coreSchema } = options;

  const open = (scope: Scope): Storage => {
    const storage: Storage = {
      kind,
      tables: Object.fromEntries(Object.entries(schema).map(([key, def]) => [key, kyselyTable(def, scope)])) as unknown as TableSet,
      transaction: scope.inTransaction
        ? (fn) => fn(storage)
        : (fn) =>
            db.transaction().execute(async (trx) => {
              const inner = new Scope(trx, dialect, true);
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

  return open(new Scope(db, dialect, false));
}
