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
