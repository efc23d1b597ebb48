import type { ColumnKind, TableDef } from "@strongroom/core/storage";
import type { Dialect } from "@strongroom/storage-kysely";
import { sql } from "@strongroom/storage-kysely/kysely";

const TYPES: Record<ColumnKind, string> = { text: "text", integer: "integer", boolean: "integer", json: "text", timestamp: "text" };

/** "UNIQUE constraint failed: users.email" or "... : org_memberships.orgId, org_memberships.userId". */
const UNIQUE_MESSAGE = /^UNIQUE constraint failed: (.+)$/;

export const sqliteDialect: Dialect = {
  columnType: (kind) => TYPES[kind],
  parameterType: (kind) => (kind === "integer" || kind === "boolean" ? "integer" : "text"),
  encodeBoolean: (value) => (value ? 1 : 0),
  // SQLite's LIKE ignores ASCII case already.
  caseInsensitiveLike: "like",
  // SQLITE_MAX_VARIABLE_NUMBER's default since SQLite 3.32.
  maxParameters: 32_766,
  failureAbortsTransaction: false,
  rowLocks: false,
  unavailable(error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "SQLITE_FULL") return "The database's disk is full";
    if (typeof code === "string" && code.startsWith("SQLITE_IOERR")) return `The database file could not be read or written (${code})`;
    if (code === "SQLITE_READONLY" || code === "SQLITE_CANTOPEN") return `The database file cannot be written (${code})`;
    return undefined;
  },
  // One connection runs one transaction at a time, but another process may write the same file
  // (an operator's command such as `strongroom rotate-data-keys`): a transaction that read first
  // then fails to upgrade to writing (SQLITE_BUSY, or SQLITE_BUSY_SNAPSHOT when the other
  // committed meanwhile) — SQLite does not wait there, to avoid a deadlock — runs again.
  transientConflict: (error) => {
    const code = (error as { code?: unknown } | null)?.code;
    return typeof code === "string" && code.startsWith("SQLITE_BUSY");
  },
  uniqueViolation(error: unknown, _def: TableDef) {
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    if (code !== "SQLITE_CONSTRAINT_UNIQUE" && code !== "SQLITE_CONSTRAINT_PRIMARYKEY") return undefined;
    const match = typeof message === "string" ? UNIQUE_MESSAGE.exec(message) : null;
    return match ? match[1].split(", ").map((qualified) => qualified.slice(qualified.indexOf(".") + 1)) : [];
  },
  async listColumns(db) {
    const { rows } = await sql<{ tableName: string; columnName: string }>`
      select m.name as "tableName", c.name as "columnName"
      from sqlite_master m join pragma_table_info(m.name) c
      where m.type = 'table'`.execute(db);
    return rows;
  },
  async listIndexes(db) {
    const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db);
    return rows.map((row) => row.name);
  },
  // BEGIN IMMEDIATE takes the write lock up front, so two processes opening one file migrate in turn
  // (a deferred transaction would fail with SQLITE_BUSY when both try to upgrade to writing).
  migrationTransaction: (db, fn) =>
    db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection);
      try {
        const result = await fn(connection);
        await sql`commit`.execute(connection);
        return result;
      } catch (error) {
        await sql`rollback`.execute(connection);
        throw error;
      }
    }),
};
