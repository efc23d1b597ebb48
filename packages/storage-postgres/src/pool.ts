import pg from "pg";
import { prepareStatements, StatementNames } from "./statement-names.js";

export type ErrorHandler = (error: Error) => void;

export const warnOnError: ErrorHandler = (error) => {
  console.warn(`strongroom: PostgreSQL connection lost (${error.message}); it will be replaced`);
};

/**
 * A pool that outlives its connections. A server restart or a dropped network makes idle
 * clients emit `error`; unhandled, that event would crash the process. The pool discards such
 * clients and opens new ones on demand, so the handlers only need to report.
 */
export function createPool(connectionString: string, overrides: pg.PoolConfig | undefined, onError: ErrorHandler): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    application_name: "strongroom",
    max: 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
    ...overrides,
  });
  pool.on("error", onError);
  const names = new StatementNames();
  // A client checked out (e.g. between the statements of a transaction) has no pool listener;
  // its error reaches the caller through the next query instead, and the pool drops it on release.
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
    prepareStatements(client, names);
  });
  return pool;
}
