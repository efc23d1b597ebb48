import { lazyTables, type Schema, type Storage, type Table, type TablesOf } from "./table.js";

/**
 * The same storage, telling `changed` about every write that changes rows of the `watched`
 * tables: once as the write completes and, inside a transaction, once more after it commits —
 * so a value read while the change was still uncommitted is not kept by whoever listens (the
 * access caches). Writes that match no row are not changes.
 */
export function observeWrites<S extends Schema>(storage: Storage<S>, watched: readonly (keyof S & string)[], changed: () => void): Storage<S> {
  const keys = new Set<string>(watched);
  const tableKeys = new Set(Object.keys(storage.schema));
  const wrap = (inner: Storage<S>, onWrite: () => void): Storage<S> => {
    const innerTables = inner.tables as Record<string, Table<any>>;
    // Without reading the inner tables: each is made when first used.
    const tables = lazyTables(tableKeys, (key) => (keys.has(key) ? observedTable(innerTables[key], onWrite) : innerTables[key])) as TablesOf<S>;
    const outer: Storage<S> = {
      kind: inner.kind,
      ...(inner.shared ? { shared: true } : {}),
      schema: inner.schema,
      inTransaction: inner.inTransaction,
      tables,
      writeStamp: inner.writeStamp && (() => inner.writeStamp?.()),
      transaction: inner.inTransaction
        ? (fn) => fn(outer)
        : async (fn) => {
            let wrote = false;
            const result = await inner.transaction((tx) =>
              fn(
                wrap(tx, () => {
                  wrote = true;
                  changed();
                }),
              ),
            );
            if (wrote) changed();
            return result;
          },
      close: () => inner.close(),
    };
    return outer;
  };
  return wrap(storage, changed);
}

function observedTable<Row>(table: Table<Row>, onWrite: () => void): Table<Row> {
  const after = <T>(count: (value: T) => number) => (value: T) => {
    if (count(value) > 0) onWrite();
    return value;
  };
  return {
    ...table,
    def: table.def,
    get: (id) => table.get(id),
    findOne: (where) => table.findOne(where),
    find: (where, options) => table.find(where, options),
    count: (where) => table.count(where),
    insert: (row) => table.insert(row).then(after(() => 1)),
    insertMany: (rows) => table.insertMany(rows).then(after(() => rows.length)),
    update: (where, patch) => table.update(where, patch).then(after((n: number) => n)),
    updateMany: (changes) => table.updateMany(changes).then(after((n: number) => n)),
    delete: (where) => table.delete(where).then(after((n: number) => n)),
  };
}
