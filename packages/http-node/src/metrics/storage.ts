import { lazyTables, type FindOptions, type Schema, type RowChange, type Storage, type Table, type Where } from "@strongroom/core/storage";
import type { StorageObserver } from "./registry.js";

/**
 * The same storage, timing every table call and transaction for `observer`: two clock reads and
 * a histogram update per call, whichever adapter is underneath (memory, SQLite, PostgreSQL).
 * Only wrapped when metrics are on.
 */
export function instrumentStorage<S extends Schema>(storage: Storage<S>, observer: StorageObserver): Storage<S> {
  // One small object per table used (methods on the prototype).
  const tablesOver = lazyTables(storage.schema, (inner: Storage<S>, key) => new TimedTable(inner.tables[key] as Table<unknown>, observer));
  const wrap = (inner: Storage<S>): Storage<S> => {
    const outer: Storage<S> = {
      kind: inner.kind,
      schema: inner.schema,
      inTransaction: inner.inTransaction,
      tables: tablesOver(inner),
      transaction: inner.inTransaction
        ? (fn) => fn(outer)
        : (fn) => timed(observer, "transaction", () => inner.transaction((tx) => fn(wrap(tx))), (seconds, ok) => observer.transaction(seconds, ok)),
      close: () => inner.close(),
    };
    return outer;
  };
  return wrap(storage);
}

class TimedTable<Row> implements Table<Row> {
  constructor(
    private readonly table: Table<Row>,
    private readonly observer: StorageObserver,
  ) {}

  get def() {
    return this.table.def;
  }

  insert(row: Row) {
    return this.time("insert", () => this.table.insert(row));
  }
  insertMany(rows: Row[]) {
    return this.time("insertMany", () => this.table.insertMany(rows));
  }
  get(id: string) {
    return this.time("get", () => this.table.get(id));
  }
  findOne(where: Where<Row>) {
    return this.time("findOne", () => this.table.findOne(where));
  }
  find(where?: Where<Row>, options?: FindOptions<Row>) {
    return this.time("find", () => this.table.find(where, options));
  }
  count(where?: Where<Row>) {
    return this.time("count", () => this.table.count(where));
  }
  update(where: Where<Row>, patch: Partial<Row>) {
    return this.time("update", () => this.table.update(where, patch));
  }
  updateMany(changes: readonly RowChange<Row>[]) {
    return this.time("updateMany", () => this.table.updateMany(changes));
  }
  delete(where: Where<Row>) {
    return this.time("delete", () => this.table.delete(where));
  }

  private time<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return timed(this.observer, "query", run, (seconds, ok) => this.observer.query(operation, seconds, ok));
  }
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
