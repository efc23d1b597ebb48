import type { Schema, Storage, Table, TablesOf } from "@strongroom/core/storage";
import type { StorageObserver } from "./registry.js";

/** The table calls that reach the database; each is one statement (or one batch). */
const TABLE_CALLS = ["insert", "insertMany", "get", "findOne", "find", "count", "update", "delete"] as const;

/**
 * The same storage, timing every table call and transaction for `observer`: two clock reads and
 * a histogram update per call, whichever adapter is underneath (memory, SQLite, PostgreSQL).
 * Only wrapped when metrics are on.
 */
export function instrumentStorage<S extends Schema>(storage: Storage<S>, observer: StorageObserver): Storage<S> {
  const wrap = (inner: Storage<S>): Storage<S> => {
    const tables = Object.fromEntries(
      Object.entries(inner.tables as Record<string, Table<unknown>>).map(([key, table]) => [key, timedTable(table, observer)]),
    ) as TablesOf<S>;
    const outer: Storage<S> = {
      kind: inner.kind,
      schema: inner.schema,
      inTransaction: inner.inTransaction,
      tables,
      transaction: inner.inTransaction
        ? (fn) => fn(outer)
        : (fn) => timed(observer, "transaction", () => inner.transaction((tx) => fn(wrap(tx))), (seconds, ok) => observer.transaction(seconds, ok)),
      close: () => inner.close(),
    };
    return outer;
  };
  return wrap(storage);
}

function timedTable<Row>(table: Table<Row>, observer: StorageObserver): Table<Row> {
  const timedTable: Record<string, unknown> = { def: table.def };
  for (const name of TABLE_CALLS) {
    const call = (table[name] as (...args: unknown[]) => Promise<unknown>).bind(table);
    timedTable[name] = (...args: unknown[]) => timed(observer, "query", () => call(...args), (seconds, ok) => observer.query(name, seconds, ok));
  }
  return timedTable as unknown as Table<Row>;
}

async function timed<T>(observer: StorageObserver, kind: "query" | "transaction", run: () => Promise<T>, done: (seconds: number, ok: boolean) => void): Promise<T> {
  const started = performance.now();
  observer.inFlight(kind, 1);
  let ok = false;
  try {
    const result = await run();
    ok = true;
    return result;
  } finally {
    observer.inFlight(kind, -1);
    done((performance.now() - started) / 1000, ok);
  }
}
