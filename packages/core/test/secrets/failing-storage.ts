import type { Storage, StrongroomSchema, Table, TablesOf } from "@strongroom/core/storage";

const WRITES = new Set(["insert", "insertMany", "update", "updateMany", "delete"]);

/**
 * Wraps a storage so that its Nth write from now (insert, insertMany, update, updateMany or delete, in or out
 * of a transaction) throws: a failure injected mid-batch.
 */
type AppStorage = Storage<StrongroomSchema>;

export function failingStorage(inner: AppStorage): AppStorage & { failOnWrite(n: number): void } {
  let countdown = 0;
  const wrapTables = (tables: TablesOf<StrongroomSchema>): TablesOf<StrongroomSchema> =>
    new Proxy(tables, {
      get(target, name) {
        const table = Reflect.get(target, name) as Table<{ id: string }>;
        return new Proxy(table, {
          get(t, method) {
            const value = Reflect.get(t, method);
            if (typeof method !== "string" || !WRITES.has(method) || typeof value !== "function") return value;
            return (...args: unknown[]) => {
              if (countdown > 0 && --countdown === 0) return Promise.reject(new Error("injected storage failure"));
              return (value as (...a: unknown[]) => unknown).apply(t, args);
            };
          },
        });
      },
    });
  const wrap = (storage: AppStorage): AppStorage => ({
    kind: storage.kind,
    schema: storage.schema,
    inTransaction: storage.inTransaction,
    tables: wrapTables(storage.tables),
    transaction: (fn) => storage.transaction((tx) => fn(wrap(tx))),
    close: () => storage.close(),
  });
  return Object.assign(wrap(inner), {
    failOnWrite(n: number) {
      countdown = n;
    },
  });
}
