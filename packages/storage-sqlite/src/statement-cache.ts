import type Database from "better-sqlite3";
import type { ReadNow } from "@strongroom/storage-kysely";
import type { SqliteDatabase } from "kysely";

/** Stands in for ROLLBACK when SQLite already ended the transaction itself. */
const NOTHING_TO_ROLL_BACK = {
  reader: false,
  all: () => [],
  iterate: () => [][Symbol.iterator](),
  run: () => ({ changes: 0, lastInsertRowid: 0 }),
} as unknown as Database.Statement;

/** Distinct SQL texts kept prepared; the storage layer's statement shapes are far fewer. */
const CAPACITY = 512;

/**
 * Prepared statements kept by their SQL text. Kysely's driver prepares every statement it runs
 * afresh, which costs more than running a lookup by key. A statement is reusable as soon as its
 * synchronous `all`/`run` returns, and better-sqlite3 runs one statement at a time.
 */
export class PreparedStatements {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly database: Database.Database) {}

  prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      if (this.statements.size >= CAPACITY) this.statements.delete(this.statements.keys().next().value as string);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * The database as Kysely's driver sees it, preparing through this cache. When a statement fails
   * with SQLITE_FULL or an I/O error, SQLite has already rolled the transaction back; Kysely's
   * ROLLBACK would then fail ("no transaction is active") and hide the error that matters, so it
   * is skipped.
   */
  forKysely(): SqliteDatabase {
    return {
      close: () => this.database.close(),
      prepare: (sql) => (sql === "rollback" && !this.database.inTransaction ? NOTHING_TO_ROLL_BACK : this.prepare(sql)),
    };
  }

  /**
   * Reads at once, unless a transaction is open on the connection: its uncommitted writes must
   * stay invisible, so the read then waits its turn behind it like any other statement.
   */
  readonly readNow: ReadNow = (sql, parameters) => {
    if (this.database.inTransaction) return undefined;
    const statement = this.prepare(sql);
    if (!statement.reader) return statement.all(parameters) as Record<string, unknown>[];
    // Rows as arrays, made objects here: better-sqlite3 builds an object row through V8's
    // property-by-name API, about twice the cost of an array and one object literal.
    statement.raw(true);
    let values: unknown[][];
    try {
      values = statement.all(parameters) as unknown[][];
    } finally {
      statement.raw(false);
    }
    const toRow = rowMaker(statement);
    const rows = new Array<Record<string, unknown>>(values.length);
    for (let i = 0; i < values.length; i++) rows[i] = toRow(values[i]!);
    return rows;
  };
}

const rowMakers = new WeakMap<Database.Statement, (values: unknown[]) => Record<string, unknown>>();

/**
 * A function turning one raw row of `statement` into the object better-sqlite3 would have made
 * (later columns of the same name win, as there): one object literal of a fixed shape, compiled
 * once per statement from its column names.
 */
function rowMaker(statement: Database.Statement): (values: unknown[]) => Record<string, unknown> {
  let make = rowMakers.get(statement);
  if (make === undefined) {
    const last = new Map<string, number>();
    statement.columns().forEach((column, i) => last.set(column.name, i));
    const fields = [...last].map(([name, i]) => `${JSON.stringify(name)}: v[${i}]`);
    make = new Function("v", `return { ${fields.join(", ")} };`) as (values: unknown[]) => Record<string, unknown>;
    rowMakers.set(statement, make);
  }
  return make;
}
