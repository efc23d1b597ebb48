import { chmod, open as openFile, rm } from "node:fs/promises";
import Database from "better-sqlite3";

/**
 * What operators do to a SQLite database file from outside the server: an online backup, a check
 * of a copy, and making sure no server has the file open before replacing it.
 */

/** Row count of every table, by name. */
export type TableCounts = Record<string, number>;

export interface BackupProgress {
  readonly totalPages: number;
  readonly remainingPages: number;
}

/** The database is open in another process (a server still running). */
export class DatabaseInUseError extends Error {
  constructor(file: string) {
    super(`${file} is in use by another process (is a server still running?); stop every server using it first`);
    this.name = "DatabaseInUseError";
  }
}

/** Pages copied per step: small enough for a smooth progress bar, large enough to finish quickly. */
const PAGES_PER_STEP = 1_000;

/**
 * Copies a live database with SQLite's online backup API into `destination` (created, mode
 * 0600; it must not exist). The copy is the snapshot of a read transaction opened before the
 * first page is copied: it holds every write committed before the backup began, WAL included,
 * while servers go on writing (WAL readers do not block writers). Returns the row counts of that
 * same snapshot, so the copy can be checked against them.
 */
export async function backupSqlite(source: string, destination: string, onProgress?: (progress: BackupProgress) => void): Promise<TableCounts> {
  // Created here first, so the file never exists with wider permissions than 0600.
  await (await openFile(destination, "wx", 0o600)).close();
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    // The read transaction pins one snapshot; the backup, on the same connection, copies exactly it.
    db.exec("BEGIN");
    const counts = countRows(db);
    await db.backup(destination, {
      progress: (progress) => {
        onProgress?.(progress);
        return PAGES_PER_STEP;
      },
    });
    db.exec("COMMIT");
    await chmod(destination, 0o600);
    return counts;
  } catch (thrown) {
    await rm(destination, { force: true });
    throw thrown;
  } finally {
    db.close();
  }
}

export interface SqliteInspection {
  /** `PRAGMA integrity_check`: `["ok"]` for a sound file, else the problems found. */
  readonly integrity: string[];
  readonly counts: TableCounts;
}

/** A full integrity check and the row counts of a database file, opened read-only. */
export function inspectSqlite(file: string): SqliteInspection {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = (db.pragma("integrity_check") as { integrity_check: string }[]).map((row) => row.integrity_check);
    return { integrity, counts: countRows(db) };
  } finally {
    db.close();
  }
}

/** One row of a table, read-only, if the table and the row exist (e.g. `instance_meta`). */
export function readRow(file: string, table: string, id: string): Record<string, unknown> | undefined {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const exists = db.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(table);
    return exists ? (db.prepare(`select * from ${quote(table)} where id = ?`).get(id) as Record<string, unknown> | undefined) : undefined;
  } finally {
    db.close();
  }
}

/**
 * Throws `DatabaseInUseError` when another process has the file open. Every connection to a WAL
 * database holds a shared lock on its shared-memory index for as long as it is open, so an
 * exclusive lock is refused at once (no wait) while any server, busy or idle, has it open.
 */
export function assertNotInUse(file: string): void {
  const db = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("COMMIT");
  } catch (thrown) {
    if ((thrown as { code?: string }).code?.startsWith("SQLITE_BUSY")) throw new DatabaseInUseError(file);
    throw thrown;
  } finally {
    db.close();
  }
}

function countRows(db: Database.Database): TableCounts {
  const tables = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").pluck().all() as string[];
  const counts: TableCounts = {};
  for (const table of tables) counts[table] = db.prepare(`select count(*) from ${quote(table)}`).pluck().get() as number;
  return counts;
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
