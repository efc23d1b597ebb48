import type Database from "better-sqlite3";
import type { ReadNow } from "@strongroom/storage-kysely";
import { rawRowsOf, type RowMaker } from "./raw-rows.js";
import { PreparedStatements } from "./statement-cache.js";

/** How long one slice of a read holds the event loop before other work gets a turn. */
const SLICE_MS = 4;
/** Rows between two looks at the clock. */
const ROWS_PER_CHECK = 64;
/** Connections kept open for reads; more are opened while that many long reads are under way at once. */
const KEPT = 2;
/** Connections at most: a read beyond waits for one to be free. */
const MOST = 8;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Reader {
  readonly database: Database.Database;
  readonly statements: PreparedStatements;
}

/**
 * Reads outside a transaction, on read-only connections of this thread (the writes run on the
 * writer thread's). A read stepping through one statement's rows sees one snapshot however long
 * it takes, so a long result (a list of 10,000 secrets) is read in slices of a few milliseconds
 * with other requests served between them; meanwhile its connection is busy, so a read that
 * comes then takes another connection. Short reads finish within their first slice and answer at
 * once, on the first connection.
 */
export class SlicedReads {
  private readonly idle: Reader[] = [];
  private open = 0;
  private readonly waiting: ((reader: Reader) => void)[] = [];
  private closed = false;

  constructor(private readonly connect: () => Database.Database) {}

  readonly read: ReadNow = (sql, parameters, decode) => {
    const reader = this.idle.pop() ?? (this.open < MOST ? this.opened() : undefined);
    if (!reader) return new Promise<Reader>((resolve) => this.waiting.push(resolve)).then((next) => this.readWith(next, sql, parameters, decode));
    return this.readWith(reader, sql, parameters, decode);
  };

  close(): void {
    this.closed = true;
    for (const reader of this.idle.splice(0)) reader.database.close();
  }

  private readWith<T>(reader: Reader, sql: string, parameters: readonly unknown[], decode: Decode<T>): T[] | Promise<T[]> {
    const rows: T[] = [];
    let iterator: IterableIterator<unknown> | undefined;
    let toObject: RowMaker | null = null;
    try {
      const statement = reader.statements.prepare(sql);
      toObject = rawRowsOf(statement);
      iterator = statement.iterate(parameters as unknown[]);
      if (slice(iterator, rows, decode, toObject)) {
        this.release(reader);
        return rows;
      }
    } catch (error) {
      iterator?.return?.();
      this.release(reader);
      throw error;
    }
    return this.rest(reader, iterator, rows, decode, toObject);
  }

  private async rest<T>(reader: Reader, iterator: IterableIterator<unknown>, rows: T[], decode: Decode<T>, toObject: RowMaker | null): Promise<T[]> {
    try {
      do await turn();
      while (!slice(iterator, rows, decode, toObject));
      return rows;
    } finally {
      iterator.return?.();
      this.release(reader);
    }
  }

  private opened(): Reader {
    const database = this.connect();
    this.open++;
    return { database, statements: new PreparedStatements(database) };
  }

  private release(reader: Reader): void {
    const next = this.waiting.shift();
    if (next) return next(reader);
    if (this.closed || this.idle.length >= KEPT) {
      reader.database.close();
      this.open--;
      return;
    }
    this.idle.push(reader);
  }
}

type Decode<T> = (raw: Record<string, unknown>) => T;

/** Steps `iterator` into `rows`, decoded, for one slice; true once it has no more rows. */
function slice<T>(iterator: IterableIterator<unknown>, rows: T[], decode: Decode<T>, toObject: RowMaker | null): boolean {
  const start = performance.now();
  for (let n = 1; ; n++) {
    const next = iterator.next();
    if (next.done) return true;
    rows.push(decode(toObject ? toObject(next.value as unknown[]) : (next.value as Record<string, unknown>)));
    if (n % ROWS_PER_CHECK === 0 && performance.now() - start >= SLICE_MS) return false;
  }
}
