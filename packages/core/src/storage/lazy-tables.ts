import type { Schema, Table, TablesOf } from "./table.js";

const OWNER = Symbol("owner");

/**
 * The `tables` of a storage view (the database, one transaction, a wrapper of either), each table
 * made on first use and kept. A transaction touches a few of the schema's tables; making every
 * one of them at every transaction cost more than its statements did. Every key is there
 * (`Object.keys`, `for…in`); reading a table's value (`Object.values` too) makes it.
 */
export function lazyTables<S extends Schema, O>(schema: S, make: (owner: O, key: keyof S & string) => Table<any>): (owner: O) => TablesOf<S> {
  // One set of getters for every view: a view only adds its owner.
  const descriptors: PropertyDescriptorMap = {};
  for (const key of Object.keys(schema) as (keyof S & string)[]) {
    descriptors[key] = {
      enumerable: true,
      configurable: true,
      get(this: Record<string | symbol, unknown>) {
        const table = make(this[OWNER] as O, key);
        Object.defineProperty(this, key, { value: table, enumerable: true });
        return table;
      },
    };
  }
  return (owner) => {
    const tables: Record<string | symbol, unknown> = { [OWNER]: owner };
    Object.defineProperties(tables, descriptors);
    return tables as unknown as TablesOf<S>;
  };
}
