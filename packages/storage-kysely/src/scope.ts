import { StorageUnavailableError } from "@strongroom/core/storage";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import type { Dialect } from "./dialect.js";
import { mapPaced } from "./paced.js";

/** A driver error meaning "the database cannot be used now" as core's `StorageUnavailableError`; others as they are. */
export function translated(dialect: Dialect, error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const reason = dialect.unavailable(error);
  return reason ? new StorageUnavailableError(reason, { cause: error }) : error;
}

/**
 * Runs a read outside any transaction without queueing for the connection, or answers undefined
 * when it cannot (a transaction is open on the connection). For a driver that executes
 * synchronously (better-sqlite3): it saves Kysely's connection hand-over, which costs as much as
 * the lookup. A long result may come as a promise, read in slices that let other work run between
 * them (one statement still: one snapshot); each row goes through `decode` within its slice.
 */
export type ReadNow = <T>(sql: string, parameters: readonly unknown[], decode: (raw: Record<string, unknown>) => T) => T[] | Promise<T[]> | undefined;

const asIs = (raw: Record<string, unknown>) => raw;

/**
 * Where a storage's statements run: the database itself, or one open transaction. Inside a
 * transaction, calls take turns (they share one connection, and a savepoint must not interleave
 * with another call's statements) and fail once the transaction has finished.
 */
export class Scope {
  private queue: Promise<unknown> = Promise.resolve();
  private savepoints = 0;
  finished = false;

  constructor(
    readonly db: Kysely<any>,
    readonly dialect: Dialect,
    readonly inTransaction: boolean,
    /** Only outside a transaction: inside one, statements must take their turn on its connection. */
    readonly readNow: ReadNow | undefined,
  ) {}

  /**
   * Runs a read: at once where the driver allows (see `KyselyStorageOptions.readNow`), else in
   * turn; each row as `decode` makes it.
   */
  async read<T = Record<string, unknown>>(query: CompiledQuery, decode: (raw: Record<string, unknown>) => T = asIs as never): Promise<T[]> {
    let rows: T[] | undefined;
    try {
      rows = await this.readNow?.(query.sql, query.parameters, decode);
    } catch (error) {
      throw translated(this.dialect, error);
    }
    if (rows) return rows;
    // Thousands of rows (a batch's re-read under lock) take tens of milliseconds to decode.
    return this.run(async (db) => mapPaced((await db.executeQuery<Record<string, unknown>>(query)).rows, decode));
  }

  run<T>(fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
    return this.inTurn(fn).catch((error: unknown) => {
      throw translated(this.dialect, error);
    });
  }

  private inTurn<T>(fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
    if (!this.inTransaction) return fn(this.db);
    if (this.finished) return Promise.reject(new Error("transaction already finished"));
    const result = this.queue.then(() => fn(this.db));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Runs a write that must leave nothing behind when it fails. One statement is atomic by itself,
   * except inside a PostgreSQL transaction, where a failure would abort the whole transaction;
   * several statements need a transaction, or a savepoint within one.
   */
  atomic<T>(fn: (db: Kysely<any>) => Promise<T>, statements: "one" | "several"): Promise<T> {
    if (!this.inTransaction) {
      return (statements === "one" ? fn(this.db) : this.db.transaction().execute((trx) => fn(trx))).catch((error: unknown) => {
        throw translated(this.dialect, error);
      });
    }
    if (statements === "one" && !this.dialect.failureAbortsTransaction) return this.run(fn);
    return this.run(async (db) => {
      const savepoint = sql.id(`strongroom_sp_${++this.savepoints}`);
      await sql`savepoint ${savepoint}`.execute(db);
      try {
        const result = await fn(db);
        await sql`release savepoint ${savepoint}`.execute(db);
        return result;
      } catch (error) {
        await sql`rollback to savepoint ${savepoint}`.execute(db);
        await sql`release savepoint ${savepoint}`.execute(db);
        throw error;
      }
    });
  }
}
