import { schemaVersion, type Schema, type Storage } from "@strongroom/core/storage";
import { createKyselyStorage, migrate } from "@strongroom/storage-kysely";
import { Kysely, PostgresDialect } from "@strongroom/storage-kysely/kysely";
import type pg from "pg";
import { postgresDialect } from "./dialect.js";
import { createPool, type ErrorHandler, warnOnError } from "./pool.js";

export interface PostgresStorageOptions {
  connectionString: string;
  /** Overrides for the pg pool (defaults: max 10, idle timeout 30 s, connection timeout 10 s). */
  pool?: pg.PoolConfig;
  /** Told about connections the server or network dropped; by default one warning line each. */
  onError?: (error: Error) => void;
  /** Handed, once the pool exists, a reader of its load (for metrics): connections open, idle, and callers waiting. */
  watchPool?: (read: () => { total: number; idle: number; waiting: number }) => void;
}

/** Connections kept from transactions for reads, whatever transactions wait for (see `maxConcurrentTransactions`). */
const READ_RESERVE = 2;

const transactionSlots = (poolSize: number | undefined): number => Math.max(1, (poolSize ?? 10) - READ_RESERVE);

/** Opens a pool and migrates the database to hold `schema`'s tables. */
export async function openPostgres<S extends Schema>(options: PostgresStorageOptions, schema: S, version = schemaVersion(schema)): Promise<Storage<S>> {
  const onError: ErrorHandler = options.onError ?? warnOnError;
  const pool = createPool(options.connectionString, options.pool, onError);
  options.watchPool?.(() => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }));
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrate(db, postgresDialect, { schema, version });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return createKyselyStorage({ kind: "postgres", shared: true, db, dialect: postgresDialect, schema, maxConcurrentTransactions: transactionSlots(pool.options.max) });
}
