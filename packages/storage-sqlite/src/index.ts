import { strongroomSchema, type Storage, type StrongroomSchema } from "@strongroom/core/storage";
import { openSqlite } from "./open.js";

export interface SqliteStorageOptions {
  /** Path of the database file (created if missing), or `:memory:`. */
  filename: string;
}

/** Strongroom's embedded default: one SQLite file in WAL mode, migrated on open. */
export function createSqliteStorage({ filename }: SqliteStorageOptions): Promise<Storage<StrongroomSchema>> {
  return openSqlite(filename, strongroomSchema);
}
export { quickCheck, QUICK_CHECK_TIMEOUT_MS, type QuickCheckOutcome } from "./quick-check.js";
export { backupSqlite, inspectSqlite, readRow, assertNotInUse, DatabaseInUseError, type TableCounts, type BackupProgress, type SqliteInspection } from "./operator.js";
