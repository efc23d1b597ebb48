import type Database from "better-sqlite3";

export type RowMaker = (values: unknown[]) => Record<string, unknown>;

const rowMakers = new WeakMap<Database.Statement, RowMaker | null>();

/**
 * Switches a statement that returns rows to raw (array) rows, and answers the function turning
 * one such row into the object better-sqlite3 would have made (later columns of the same name
 * win, as there): one object literal of a fixed shape, compiled once per statement from its
 * column names. better-sqlite3 builds an object row through V8's property-by-name API, about
 * twice the cost of an array and one literal. Null for a statement that returns no rows.
 * The statement stays raw: only for statements of a connection whose every read goes through here.
 */
export function rawRowsOf(statement: Database.Statement): RowMaker | null {
  let make = rowMakers.get(statement);
  if (make === undefined) {
    make = statement.reader ? compile(statement) : null;
    if (make) statement.raw(true);
    rowMakers.set(statement, make);
  }
  return make;
}

function compile(statement: Database.Statement): RowMaker {
  const last = new Map<string, number>();
  statement.columns().forEach((column, i) => last.set(column.name, i));
  const fields = [...last].map(([name, i]) => `${JSON.stringify(name)}: v[${i}]`);
  return new Function("v", `return { ${fields.join(", ")} };`) as RowMaker;
}
