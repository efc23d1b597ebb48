import type { Storage, Table, TableSet } from "@strongroom/core";

const WRITES = new Set(["insert", "insertMany", "update", "delete"]);

/**
 * Wraps a storage so that its Nth write from now (insert, insertMany, update or delete, in or out
 * of a transaction) throws: a failure injected mid-batch.
 */
export function failingStorage(inner: Storage): Storage & { failOnWrite(n: number): void } {
  let countdown = 0;
  const wrapTables = (tables: TableSet): TableSet =>
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
  const wrap = (storage: Storage): Storage => ({
    kind: storage.kind,
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
