import { schema as coreSchema, SCHEMA_VERSION, type Storage, type TableDef } from "@strongroom/core";
import { createKyselyStorage, migrate } from "@strongroom/storage-kysely";
import { Kysely, PostgresDialect } from "kysely";
import type pg from "pg";
import { postgresDialect } from "./dialect.js";
import { createPool, type ErrorHandler, warnOnError } from "./pool.js";

export interface PostgresStorageOptions {
  connectionString: string;
  /** Overrides for the pg pool (defaults: max 10, idle timeout 30 s, connection timeout 10 s). */
  pool?: pg.PoolConfig;
  /** Told about connections the server or network dropped; by default one warning line each. */
  onError?: (error: Error) => void;
}

/** Opens a pool and migrates the database; tests pass an extended schema. */
export async function openPostgres(
  options: PostgresStorageOptions,
  schema: Record<string, TableDef> = coreSchema,
  version = SCHEMA_VERSION,
): Promise<Storage> {
  const onError: ErrorHandler = options.onError ?? warnOnError;
  const pool = createPool(options.connectionString, options.pool, onError);
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrate(db, postgresDialect, { schema, version });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return createKyselyStorage({ kind: "postgres", db, dialect: postgresDialect, schema });
}
