import { schemaVersion, type Schema, type Storage } from "@strongroom/core/storage";
import { createKyselyStorage, migrate } from "@strongroom/storage-kysely";
import { chmod, open } from "node:fs/promises";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "@strongroom/storage-kysely/kysely";
import { sqliteDialect } from "./dialect.js";
import { SlicedReads } from "./sliced-reads.js";
import { PreparedStatements } from "./statement-cache.js";
import { writerDialect } from "./writer-dialect.js";
import { SqliteWriter } from "./writer.js";

/** A database in a file of its own, which a second connection (the writer thread's) can open too. */
const inFile = (filename: string) => filename !== "" && filename !== ":memory:" && !filename.startsWith("file:");

/**
 * A database file readable by its owner only: created so, or made so. SQLite gives the `-wal` and
 * `-shm` files it creates beside it the database file's permissions.
 */
async function privateFile(filename: string): Promise<void> {
  await (await open(filename, "a", 0o600)).close();
  await chmod(filename, 0o600);
  // Ones left by an earlier run keep their own permissions: made private too.
  for (const beside of [`${filename}-wal`, `${filename}-shm`]) {
    await chmod(beside, 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
}

/**
 * Opens (creating if needed, owner-only) and migrates a database file holding `schema`'s tables.
 * Writes and transactions run on a connection in a worker thread (writer.ts), started with the
 * first of them; reads outside a transaction run at once on read-only connections of this thread
 * (sliced-reads.ts), which see what has committed (WAL readers and the writer do not block each
 * other). Migrations run before any of that, on a connection of this thread: nothing else uses
 * the storage yet, and a start then needs no thread, nor a round trip to one per statement. An
 * in-memory database has one connection only: it runs in this thread (`storageOver`).
 */
export async function openSqlite<S extends Schema>(filename: string, schema: S, version = schemaVersion(schema)): Promise<Storage<S>> {
  if (!inFile(filename)) return storageOver(configured(new Database(filename)), schema, version);
  await privateFile(filename);
  await (await migrated(new PreparedStatements(configured(new Database(filename))), schema, version)).destroy();
  const writer = new SqliteWriter(filename);
  const stamper = readOnly(filename);
  const reads = new SlicedReads(() => readOnly(filename));
  const db = new Kysely<any>({
    dialect: writerDialect(writer, () => {
      reads.close();
      stamper.close();
    }),
  });
  // A connection that never writes: its data version moves whenever anything commits to the file
  // (the writer thread, another process). Inside a transaction (BEGIN IMMEDIATE) nothing else commits.
  const stamp = stamper.prepare("select data_version as version from pragma_data_version").pluck();
  return createKyselyStorage({ kind: "sqlite", db, dialect: sqliteDialect, schema, readNow: reads.read, writeStamp: () => String(stamp.get()) });
}

/** A connection of this thread that only reads (the writer thread has made the file and its tables). */
function readOnly(filename: string): Database.Database {
  const database = configured(new Database(filename, { fileMustExist: true }));
  database.pragma("query_only = ON");
  return database;
}

/** busy_timeout first: switching to WAL needs a lock another process may briefly hold. */
function configured(database: Database.Database): Database.Database {
  try {
    database.pragma("busy_timeout = 5000");
    database.pragma("journal_mode = WAL");
    database.pragma("foreign_keys = ON");
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

/**
 * The storage over an open database, everything on its one connection in this thread (migrated
 * first); closing the storage closes the database.
 */
export async function storageOver<S extends Schema>(database: Database.Database, schema: S, version = schemaVersion(schema)): Promise<Storage<S>> {
  const statements = new PreparedStatements(database);
  const db = await migrated(statements, schema, version);
  // Every write of this process goes through this one connection (total_changes counts them as
  // they run, committed or not); data_version moves when another process commits to the file.
  const stamp = database.prepare("select total_changes() as changes, data_version as version from pragma_data_version");
  const writeStamp = () => {
    const { changes, version } = stamp.get() as { changes: number; version: number };
    return `${changes}:${version}`;
  };
  return createKyselyStorage({ kind: "sqlite", db, dialect: sqliteDialect, schema, readNow: statements.readNow, writeStamp });
}

/** Kysely over a connection of this thread, its database migrated; destroying it closes the connection. */
async function migrated<S extends Schema>(statements: PreparedStatements, schema: S, version: number): Promise<Kysely<any>> {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: statements.forKysely() }) });
  try {
    await migrate(db, sqliteDialect, { schema, version });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}
