import type { RowOf, TableDef } from "./columns.js";
import type { TableName, Tables } from "./schema.js";

/**
 * The storage port. Core's repositories are written once against this interface; the in-memory,
 * SQLite and PostgreSQL adapters each implement it once, generically for every table.
 */

/** A condition on one column. A bare value means equality (`null` means IS NULL). */
export type FieldCondition<V> =
  | V
  | { in: readonly V[] }
  | { ne: V }
  | { lt: V }
  | { lte: V }
  | { gt: V }
  | { gte: V }
  /** Case-insensitive substring match on a text column. */
  | { contains: string };

/** The operator keys a `FieldCondition` object may use. */
export const WHERE_OPERATORS: ReadonlySet<string> = new Set(["in", "ne", "lt", "lte", "gt", "gte", "contains"]);

/** The operator of a condition, or undefined when the condition is a bare value (equality). */
export function operatorOf(condition: unknown): string | undefined {
  if (typeof condition !== "object" || condition === null || Array.isArray(condition)) return undefined;
  const keys = Object.keys(condition);
  return keys.length === 1 && WHERE_OPERATORS.has(keys[0]) ? keys[0] : undefined;
}

export type Where<Row> = { [K in keyof Row]?: FieldCondition<Row[K]> } & {
  /** Any of these groups matches (each group is an AND of its fields). */
  $or?: Where<Row>[];
};

export interface FindOptions<Row> {
  orderBy?: [keyof Row & string, "asc" | "desc"][];
  limit?: number;
  offset?: number;
}

export interface Table<Row> {
  readonly def: TableDef;
  /** Throws `UniqueViolationError` when a unique group (or the id) already exists. */
  insert(row: Row): Promise<void>;
  /** All rows or none. */
  insertMany(rows: Row[]): Promise<void>;
  get(id: string): Promise<Row | undefined>;
  findOne(where: Where<Row>): Promise<Row | undefined>;
  find(where?: Where<Row>, options?: FindOptions<Row>): Promise<Row[]>;
  count(where?: Where<Row>): Promise<number>;
  /**
   * Updates every matching row and returns how many matched. A conditional update
   * (`update({id, usedAt: null}, {usedAt: now})`) is atomic: of concurrent callers exactly one gets 1.
   */
  update(where: Where<Row>, patch: Partial<Row>): Promise<number>;
  delete(where: Where<Row>): Promise<number>;
}

export type TableSet = { [N in TableName]: Table<RowOf<Tables[N]>> };

export interface Storage {
  /** `memory`, `sqlite`, `postgres`: for diagnostics and dialect-aware tests only. */
  readonly kind: string;
  readonly tables: TableSet;
  /**
   * Runs `fn` in one transaction: every write inside commits together or not at all.
   * Calling `transaction` on the storage passed to `fn` joins the outer transaction.
   */
  transaction<T>(fn: (tx: Storage) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
