import type { ColumnKind, TableDef } from "@strongroom/core/storage";
import { type Dialect, uniqueColumnsOf } from "@strongroom/storage-kysely";
import { sql } from "@strongroom/storage-kysely/kysely";
import { advisoryXactLock } from "./lock.js";

/**
 * Text compares in the "C" collation (code point order), matching SQLite and the in-memory
 * adapter whatever the database's locale. Integers are bigint (pg returns them as strings,
 * which the shared codec turns back into numbers).
 */
const TYPES: Record<ColumnKind, string> = {
  text: 'text collate "C"',
  integer: "bigint",
  boolean: "boolean",
  json: 'text collate "C"',
  timestamp: 'text collate "C"',
};

const UNIQUE_VIOLATION = "23505";
/** serialization_failure and deadlock_detected: PostgreSQL aborted the transaction to let another finish. */
const TRANSIENT_CONFLICTS = new Set(["40001", "40P01"]);

/** Network failures the driver reports by Node's error code. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
/** admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections; class 08 is checked apart. */
const SERVER_UNAVAILABLE = new Set(["57P01", "57P02", "57P03", "53300"]);
/** What pg says when a connection ends under it or the pool cannot hand one out in time. */
const LOST_CONNECTION = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

function unavailableReason(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (NETWORK_CODES.has(code) || SERVER_UNAVAILABLE.has(code) || code.startsWith("08"))) {
    return `The database is not reachable (${code})`;
  }
  if (typeof message === "string" && LOST_CONNECTION.test(message)) return "The database is not reachable (connection lost)";
  return undefined;
}

export const postgresDialect: Dialect = {
  columnType: (kind) => TYPES[kind],
  parameterType: (kind) => (kind === "integer" ? "bigint" : kind === "boolean" ? "boolean" : "text"),
  encodeBoolean: (value) => value,
  // On "C"-collated columns ILIKE folds ASCII letters only, exactly like SQLite's LIKE.
  caseInsensitiveLike: "ilike",
  // The wire protocol numbers bind parameters with 16 bits.
  maxParameters: 65_535,
  // pg builds a statement's bind message in one synchronous call (~0.3 µs a parameter): a
  // 5,000-row write in one statement held the event loop for ~20 ms, in statements of this size
  // ~1–2 ms each, at the cost of a round trip per statement.
  parametersPerStatement: 4_096,
  failureAbortsTransaction: true,
  rowLocks: true,
  unavailable: unavailableReason,
  transientConflict: (error) => TRANSIENT_CONFLICTS.has((error as { code?: string } | null)?.code ?? ""),
  uniqueViolation(error: unknown, def: TableDef) {
    const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
    if (code !== UNIQUE_VIOLATION) return undefined;
    const name = typeof constraint === "string" ? constraint : "";
    return uniqueColumnsOf(def, name) ?? [name];
  },
  async listColumns(db) {
    const { rows } = await sql<{ tableName: string; columnName: string }>`
      select table_name as "tableName", column_name as "columnName"
      from information_schema.columns
      where table_schema = current_schema()`.execute(db);
    return rows;
  },
  async listIndexes(db) {
    const { rows } = await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(db);
    return rows.map((row) => row.name);
  },
  migrationTransaction: (db, fn) =>
    db.transaction().execute(async (trx) => {
      await advisoryXactLock("strongroom:migrate").execute(trx);
      return fn(trx);
    }),
};
