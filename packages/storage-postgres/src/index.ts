import type { Storage } from "@strongroom/core";
import { openPostgres, type PostgresStorageOptions } from "./storage.js";

export type { PostgresStorageOptions } from "./storage.js";
export { createPostgresBus, type PostgresBusOptions } from "./bus.js";

/** Storage on PostgreSQL: a connection pool over a database migrated on open. */
export function createPostgresStorage(options: PostgresStorageOptions): Promise<Storage> {
  return openPostgres(options);
}
