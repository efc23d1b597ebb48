import { lazyTables } from "./lazy-tables.js";
import type { RowChange, Schema, Storage, Table, TablesOf, Where } from "./table.js";

/** Moves the stamps of `keys` inside transaction `tx`. */
export type StampMover<S extends Schema> = (tx: Storage<S>, keys: ReadonlySet<string>) => Promise<void>;

/**
 * The same storage, moving a stamp per `keyColumn` value (a project id) in the same transaction
 * as every write to the `watched` tables: a reader that sees the stamp unchanged knows no row of
 * that key changed, on this node or another, since the database holds both. Writes made outside
 * a transaction are wrapped in one with their stamp; inside one, the stamps move once, as the
 * transaction's callback ends. The keys come from the written rows or the `where` / `expect`
 * values when they name the column, else from the rows about to change (read first).
 */
export function stampWrites<S extends Schema>(storage: Storage<S>, watched: readonly (keyof S & string)[], keyColumn: string, move: StampMover<S>): Storage<S> {
  const keys = new Set<string>(watched);

  // Made on first use, like the inner transaction's: a transaction touches a few tables.
  const keyedTables = lazyTables(storage.schema, ({ tx, touched }: { tx: Storage<S>; touched: Set<string> }, key) => {
    const table = tx.tables[key] as Table<any>;
    return keys.has(key) ? keyedTable(table, keyColumn, (stamped) => touched.add(stamped)) : table;
  });

  const inTransaction = (tx: Storage<S>, touched: Set<string>): Storage<S> => {
    const outer: Storage<S> = {
      ...base(tx),
      inTransaction: true,
      tables: keyedTables({ tx, touched }),
      transaction: (fn) => fn(outer),
    };
    return outer;
  };

  const begin = <T>(fn: (tx: Storage<S>, touched: Set<string>) => Promise<T>): Promise<T> =>
    storage.transaction(async (tx) => {
      // A fresh set per attempt: a transaction the database runs again starts from nothing.
      const touched = new Set<string>();
      const result = await fn(inTransaction(tx, touched), touched);
      if (touched.size > 0) await move(tx, touched);
      return result;
    });

  const tablesWith = (inner: Storage<S>, wrap: (key: string, table: Table<any>) => Table<any>): TablesOf<S> =>
    Object.fromEntries(
      Object.entries(inner.tables as Record<string, Table<any>>).map(([key, table]) => [key, keys.has(key) ? wrap(key, table) : table]),
    ) as TablesOf<S>;

  if (storage.inTransaction) throw new Error("stampWrites wraps a storage, not a transaction");
  return {
    ...base(storage),
    inTransaction: false,
    // A write outside a transaction becomes one with its stamp.
    tables: tablesWith(storage, (key) => autoCommitted(key, (fn) => begin((tx) => fn((tx.tables as Record<string, Table<any>>)[key]!)), storage)),
    transaction: (fn) => begin(fn),
  };
}

const base = <S extends Schema>(inner: Storage<S>) => ({
  kind: inner.kind,
  ...(inner.shared ? { shared: true as const } : {}),
  schema: inner.schema,
  writeStamp: inner.writeStamp && (() => inner.writeStamp?.()),
  close: () => inner.close(),
});

/** The reading half of a table, passed straight through (a stamp moves only with writes). */
function readsOf<Row>(table: Table<Row>): Pick<Table<Row>, "def" | "get" | "findOne" | "find" | "count"> {
  return {
    def: table.def,
    get: (id) => table.get(id),
    findOne: (where) => table.findOne(where),
    find: (where, options) => table.find(where, options),
    count: (where) => table.count(where),
  };
}

/** A watched table outside a transaction: reads go straight through, each write runs in its own stamped transaction. */
function autoCommitted<Row>(key: string, inOwn: <T>(fn: (table: Table<Row>) => Promise<T>) => Promise<T>, storage: Storage<any>): Table<Row> {
  const table = (storage.tables as Record<string, Table<Row>>)[key]!;
  return {
    ...readsOf(table),
    insert: (row) => inOwn((t) => t.insert(row)),
    insertMany: (rows) => (rows.length === 0 ? table.insertMany(rows) : inOwn((t) => t.insertMany(rows))),
    update: (where, patch) => inOwn((t) => t.update(where, patch)),
    updateMany: (changes) => (changes.length === 0 ? table.updateMany(changes) : inOwn((t) => t.updateMany(changes))),
    delete: (where) => inOwn((t) => t.delete(where)),
  };
}

/** A watched table inside a transaction: each write tells `touch` the keys of the rows it may change. */
function keyedTable<Row>(table: Table<Row>, column: string, touch: (key: string) => void): Table<Row> {
  const of = (row: unknown) => (row as Record<string, unknown>)[column];
  const touchValue = (value: unknown) => {
    if (typeof value === "string") touch(value);
  };
  /** Keys a `where` pins down by itself (an equality or an `in` list on the column), else undefined. */
  const pinned = (where: Where<Row>): unknown[] | undefined => {
    if (where.$or) return undefined;
    const condition = of(where);
    if (typeof condition === "string") return [condition];
    if (typeof condition === "object" && condition !== null && Array.isArray((condition as { in?: unknown }).in)) return (condition as { in: unknown[] }).in;
    return undefined;
  };
  const touchWhere = async (where: Where<Row>) => {
    const named = pinned(where);
    if (named) for (const key of named) touchValue(key);
    else for (const row of await table.find(where)) touchValue(of(row));
  };
  const touchChanges = async (changes: readonly RowChange<Row>[]) => {
    const unnamed: string[] = [];
    for (const change of changes) {
      const key = change.expect ? of(change.expect) : undefined;
      if (typeof key === "string") touch(key);
      else unnamed.push(change.id);
    }
    if (unnamed.length) await touchWhere({ id: { in: unnamed } } as unknown as Where<Row>);
  };
  return {
    ...readsOf(table),
    insert: (row) => {
      touchValue(of(row));
      return table.insert(row);
    },
    insertMany: (rows) => {
      for (const row of rows) touchValue(of(row));
      return table.insertMany(rows);
    },
    update: async (where, patch) => {
      await touchWhere(where);
      return table.update(where, patch);
    },
    updateMany: async (changes) => {
      await touchChanges(changes);
      return table.updateMany(changes);
    },
    delete: async (where) => {
      await touchWhere(where);
      return table.delete(where);
    },
  };
}
