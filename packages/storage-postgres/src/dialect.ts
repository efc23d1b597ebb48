import type { ColumnKind, TableDef } from "@strongroom/core/storage";
import { type Dialect, uniqueColumnsOf } from "@strongroom/storage-kysely";
import { sql } from "kysely";
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

export const postgresDialect: Dialect = {
  columnType: (kind) => TYPES[kind],
  encodeBoolean: (value) => value,
  // On "C"-collated columns ILIKE folds ASCII letters only, exactly like SQLite's LIKE.
  caseInsensitiveLike: "ilike",
  // The wire protocol numbers bind parameters with 16 bits.
  maxParameters: 65_535,
  failureAbortsTransaction: true,
  rowLocks: true,
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
