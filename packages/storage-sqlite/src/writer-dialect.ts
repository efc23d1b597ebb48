import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect as KyselyDialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from "@strongroom/storage-kysely/kysely";
import type { SqliteWriter } from "./writer.js";

/** The one connection, in turn: a caller keeps it from acquire to release (a whole transaction). */
class Turns {
  private tail: Promise<void> = Promise.resolve();

  async take(): Promise<() => void> {
    let release!: () => void;
    const previous = this.tail;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    return release;
  }
}

class WriterConnection implements DatabaseConnection {
  constructor(private readonly writer: SqliteWriter) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.writer.execute(query.sql, query.parameters);
    if ("rows" in result) return { rows: result.rows as R[] };
    return { rows: [], numAffectedRows: BigInt(result.changes), insertId: BigInt(result.lastInsertRowid) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("the SQLite writer does not stream results");
  }
}

class WriterDriver implements Driver {
  private readonly turns = new Turns();
  private readonly connection: WriterConnection;
  private release: (() => void) | undefined;

  constructor(
    private readonly writer: SqliteWriter,
    private readonly onDestroy: () => void,
  ) {
    this.connection = new WriterConnection(writer);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.release = await this.turns.take();
    return this.connection;
  }

  // IMMEDIATE: the write lock is held from the start, so no other process commits while the
  // transaction runs — its first reads and a write stamp read then stay true until it commits.
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.writer.close();
    this.onDestroy();
  }
}

/** Kysely's SQLite dialect, its statements run by the writer thread (writer.ts); `onDestroy` runs once it has closed. */
export function writerDialect(writer: SqliteWriter, onDestroy: () => void): KyselyDialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new WriterDriver(writer, onDestroy),
    createIntrospector: (db: Kysely<any>) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
