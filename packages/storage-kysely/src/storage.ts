import { lazyTables, type Schema, type Storage, type TablesOf } from "@strongroom/core/storage";
import type { Kysely } from "kysely";
import type { Dialect } from "./dialect.js";
import { Gate } from "./gate.js";
import { Scope, translated, type ReadNow } from "./scope.js";
import { kyselyTable, tableStatements } from "./table.js";

export interface KyselyStorageOptions<S extends Schema> {
  /** Reported as `Storage.kind`, e.g. "sqlite" or "postgres". */
  kind: string;
  /** Reported as `Storage.shared`: other processes (nodes) write to the same database. */
  shared?: boolean;
  /** An already migrated database (see `migrate`); `close()` destroys it. */
  db: Kysely<any>;
  dialect: Dialect;
  /** Table definitions keyed as `Storage.tables`. */
  schema: S;
  /** See `ReadNow`. */
  readNow?: ReadNow;
  /**
   * Transactions open at once, the others queue in the process (default: no bound). Set it below
   * the connection pool's size so that transactions waiting for row locks never take every
   * connection from the reads of unrelated requests.
   */
  maxConcurrentTransactions?: number;
  /** See `Storage.writeStamp` (SQLite: this connection's changes and the file's data version). */
  writeStamp?: () => string;
}

/** Runs of a transaction the database aborted for a conflict (deadlock, serialization), in all. */
export const TRANSACTION_ATTEMPTS = 5;

/**
 * Runs a transaction again when the database aborted it only to let a concurrent one finish
 * (`Dialect.transientConflict`): the client never sees a deadlock. The rolled-back attempt left
 * nothing behind, and the callback runs from the start, reading the winner's committed state. A
 * short random pause lets the winner commit first; after `TRANSACTION_ATTEMPTS` the error stands.
 */
export async function retryingConflicts<T>(dialect: Dialect, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !dialect.transientConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

export function createKyselyStorage<S extends Schema>(options: KyselyStorageOptions<S>): Storage<S> {
  const { kind, db, dialect, schema, readNow } = options;
  const gate = options.maxConcurrentTransactions ? new Gate(options.maxConcurrentTransactions) : undefined;
  const begin = <T>(fn: () => Promise<T>): Promise<T> =>
    (gate ? gate.through(fn) : fn()).catch((error: unknown) => {
      throw translated(dialect, error);
    });
  const statements = new Map(Object.entries(schema).map(([key, def]) => [key, tableStatements(def)] as const));
  const tableKeys = new Set(statements.keys());

  const open = (scope: Scope): Storage<S> => {
    const storage: Storage<S> = {
      kind,
      ...(options.shared ? { shared: true } : {}),
      schema,
      inTransaction: scope.inTransaction,
      writeStamp: options.writeStamp,
      tables: lazyTables(tableKeys, (key) => kyselyTable(statements.get(key)!, scope)) as unknown as TablesOf<S>,
      transaction: scope.inTransaction
        ? (fn) => fn(storage)
        : (fn) =>
            begin(() =>
              retryingConflicts(dialect, () =>
                db.transaction().execute(async (trx) => {
                  const inner = new Scope(trx, dialect, true, undefined);
                  try {
                    return await fn(open(inner));
                  } finally {
                    inner.finished = true;
                  }
                }),
              ),
            ),
      close: scope.inTransaction
        ? () => Promise.reject(new Error("close the storage, not a transaction"))
        : () => db.destroy(),
    };
    return storage;
  };

  return open(new Scope(db, dialect, false, readNow));
}
