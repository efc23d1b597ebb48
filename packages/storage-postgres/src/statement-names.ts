import type pg from "pg";

/** Distinct statement texts given a name; later new texts run unnamed (parsed each time). */
const CAPACITY = 2_000;

/** Statements worth preparing: the storage layer's queries, not transaction control or DDL. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Names for SQL texts, shared by every connection of a pool. A named statement is parsed and
 * planned once per connection and then only bound and executed: on the read path that is about
 * half of PostgreSQL's CPU per query. A name is never given to a second text (pg refuses a name
 * reused for other SQL), so once the table is full new texts simply stay unnamed.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();

  of(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < CAPACITY && PREPARABLE.test(text)) {
      name = `sr${this.names.size}`;
      this.names.set(text, name);
    }
    return name;
  }
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Makes `client.query(text, values)` — how Kysely's driver runs every statement — send the text
 * as a named (prepared) statement. Other call shapes (config objects, cursors, callbacks) pass
 * through untouched.
 */
export function prepareStatements(client: pg.ClientBase, names: StatementNames): void {
  const query = client.query as unknown as QueryFn;
  (client as unknown as { query: QueryFn }).query = function (this: pg.ClientBase, ...args: unknown[]) {
    const [text, values] = args;
    if (args.length === 2 && typeof text === "string" && Array.isArray(values)) {
      const name = names.of(text);
      if (name !== undefined) return query.call(this, { name, text, values });
    }
    return query.apply(this, args);
  };
}
