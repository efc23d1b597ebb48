import { strongroomSchema, type Storage, type StrongroomSchema } from "@strongroom/core/storage";
import { openPostgres, type PostgresStorageOptions } from "./storage.js";

export type { PostgresStorageOptions } from "./storage.js";
export { createPostgresBus, type PostgresBusOptions } from "./bus.js";

/** Storage on PostgreSQL: a connection pool over a database migrated on open. */
export function createPostgresStorage(options: PostgresStorageOptions): Promise<Storage<StrongroomSchema>> {
  return openPostgres(options, strongroomSchema);
}
