import type Database from "better-sqlite3";
import type { ReadNow } from "@strongroom/storage-kysely";
import type { SqliteDatabase } from "@strongroom/storage-kysely/kysely";

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
  readonly readNow: ReadNow = (sql, parameters, decode) =>
    this.database.inTransaction ? undefined : (this.prepare(sql).all(parameters) as Record<string, unknown>[]).map(decode);
}
