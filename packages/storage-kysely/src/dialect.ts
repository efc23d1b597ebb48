import type { ColumnKind, TableDef } from "@strongroom/core/storage";
import type { Kysely } from "kysely";

/**
 * Everything that differs between the SQL databases Strongroom runs on. The tables, queries and
 * migrations are written once against Kysely; each backend package supplies one of these.
 */
export interface Dialect {
  /** Column type for CREATE TABLE / ADD COLUMN. */
  columnType(kind: ColumnKind): string;
  /**
   * The type a bound parameter is cast to where nothing else tells the database its type (a
   * VALUES list): PostgreSQL takes such parameters as text.
   */
  parameterType(kind: ColumnKind): string;
  /** How a boolean is bound as a parameter (SQLite has no boolean type). */
  encodeBoolean(value: boolean): unknown;
  /** The LIKE operator that ignores ASCII case. */
  readonly caseInsensitiveLike: "like" | "ilike";
  /** Most bind parameters one statement may carry; insertMany splits rows to stay under it. */
  readonly maxParameters: number;
  /**
   * Fewer parameters per statement than `maxParameters`, for a driver that encodes a statement's
   * parameters on the event loop in one piece (pg: ~20 ms for 65,535). Multi-row writes split
   * into statements of this size, and other requests run while each is at the server.
   */
  readonly parametersPerStatement?: number;
  /**
   * True when a failed statement poisons the whole transaction (PostgreSQL). Writes inside a
   * transaction then run in a savepoint, so a caught unique violation leaves the transaction usable.
   */
  readonly failureAbortsTransaction: boolean;
  /**
   * True when `SELECT … FOR UPDATE` locks rows (PostgreSQL). Where a database runs one write
   * transaction at a time anyway (SQLite), reads for update are plain reads.
   */
  readonly rowLocks: boolean;
  /**
   * True for an error that aborted a transaction only because of what ran beside it (PostgreSQL's
   * deadlock and serialization failures): running the transaction again is expected to succeed.
   */
  transientConflict(error: unknown): boolean;
  /**
   * Why the database cannot be used now, when `error` says so (connection refused or lost, server
   * shutting down, disk full); undefined for any other error. Such errors reach core as
   * `StorageUnavailableError` with this reason.
   */
  unavailable(error: unknown): string | undefined;
  /** The columns of the unique constraint a driver error reports, or undefined for any other error. */
  uniqueViolation(error: unknown, def: TableDef): string[] | undefined;
  /** Every column of every table in the current schema. */
  listColumns(db: Kysely<any>): Promise<{ tableName: string; columnName: string }[]>;
  /** Names of every index in the current schema. */
  listIndexes(db: Kysely<any>): Promise<string[]>;
  /** Runs `fn` in one transaction that concurrent migrators (other processes or nodes) wait for. */
  migrationTransaction<T>(db: Kysely<any>, fn: (db: Kysely<any>) => Promise<T>): Promise<T>;
}
