import type { RowOf, TableDef } from "./columns.js";

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
  /**
   * Inside a transaction: lock the rows found until it ends, so a read-modify-write of them is
   * serialized against every other (`SELECT … FOR UPDATE` on PostgreSQL; SQLite and the memory
   * store run one write transaction at a time already). Ignored outside a transaction.
   */
  forUpdate?: boolean;
}

/** One row's change in `Table.updateMany`: the row by id, values its columns must still hold, the columns to set. */
export interface RowChange<Row> {
  id: string;
  /** The change applies only while the row still holds these values (e.g. the version read). */
  expect?: Partial<Row>;
  patch: Partial<Row>;
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
  /**
   * Many by-id updates in as few statements as the database takes (SQL: one per few thousand
   * rows of one shape, rather than one round trip each) and how many rows changed: a row whose
   * `expect` values no longer hold, or that is gone, is left as it is. Ids must be distinct. Use
   * it inside a transaction when the changes must be all or nothing.
   */
  updateMany(changes: readonly RowChange<Row>[]): Promise<number>;
  delete(where: Where<Row>): Promise<number>;
}

/** Table definitions keyed by the name code uses for them (`storage.tables.<key>`). */
export type Schema = Record<string, TableDef>;

/** The tables of a schema, each typed by its columns. */
export type TablesOf<S extends Schema> = { [N in keyof S]: Table<RowOf<S[N]>> };

/**
 * A store of the tables of schema `S`. The port knows no application: whoever opens a store
 * says which tables it holds (Strongroom assembles its schema from every area's tables).
 */
export interface Storage<S extends Schema = Schema> {
  /** `memory`, `sqlite`, `postgres`: for diagnostics and dialect-aware tests only. */
  readonly kind: string;
  /**
   * Other processes write to this store too (several nodes on one PostgreSQL database): what an
   * instance caches may change behind its back, so whatever must see such a change within a
   * bound reads the store again. Absent: this process is the only writer (memory, SQLite).
   */
  readonly shared?: boolean;
  readonly schema: S;
  readonly tables: TablesOf<S>;
  /**
   * Runs `fn` in one transaction: every write inside commits together or not at all.
   * Calling `transaction` on the storage passed to `fn` joins the outer transaction. When the
   * database aborts the transaction for a conflict with a concurrent one (a deadlock, a
   * serialization failure), `fn` runs again from the start: it must not act outside the storage.
   */
  transaction<T>(fn: (tx: Storage<S>) => Promise<T>): Promise<T>;
  /**
   * A value that changes whenever anything is written to the database, by this process or another
   * (rolled-back writes may change it too); undefined where the store cannot tell cheaply (several
   * nodes on PostgreSQL). Lets work prepared outside a transaction know nothing changed since.
   */
  writeStamp?(): string | undefined;
  /** True for the storage handed to a `transaction` callback. */
  readonly inTransaction: boolean;
  close(): Promise<void>;
}

/**
 * The tables `part` declares, taken from a storage that holds them (and maybe more): how an
 * area reaches its own tables, typed by its own declarations. Throws when one is missing.
 */
export function tablesOf<P extends Schema>(storage: Storage, part: P): TablesOf<P> {
  const out: Record<string, Table<any>> = {};
  for (const key of Object.keys(part)) {
    const table = (storage.tables as Record<string, Table<any>>)[key];
    if (!table || table.def.name !== part[key].name) throw new Error(`storage holds no table ${part[key].name} (as ${key})`);
    out[key] = table;
  }
  return out as TablesOf<P>;
}

/**
 * A storage's `tables` whose tables are each made on first use, then kept: a transaction gets
 * its own tables, touches a few of the schema's dozens, and making every one of them (or even
 * defining a property per table) costs more than a small transaction's statements. Enumerating
 * makes them all.
 */
export function lazyTables<T>(keys: ReadonlySet<string>, make: (key: string) => T): Record<string, T> {
  const made = new Map<string, T>();
  const tableAt = (key: string): T | undefined => {
    let table = made.get(key);
    if (table === undefined && keys.has(key)) made.set(key, (table = make(key)));
    return table;
  };
  return new Proxy({} as Record<string, T>, {
    get: (_, key) => (typeof key === "string" ? tableAt(key) : undefined),
    has: (_, key) => typeof key === "string" && keys.has(key),
    ownKeys: () => [...keys],
    getOwnPropertyDescriptor: (_, key) =>
      typeof key === "string" && keys.has(key) ? { value: tableAt(key), writable: false, enumerable: true, configurable: true } : undefined,
  });
}

/** Raised by storage adapters when a unique constraint rejects a write. */
export class UniqueViolationError extends Error {
  constructor(
    readonly table: string,
    readonly columns: string[],
  ) {
    super(`unique constraint violated on ${table}(${columns.join(", ")})`);
    this.name = "UniqueViolationError";
  }
}

/**
 * Raised by storage adapters when the database cannot be used now — unreachable, shutting down,
 * its disk full — rather than because of the request: the same request may succeed later.
 * `reason` says which, in words fit for a log line and for the client (no data, no credentials).
 */
export class StorageUnavailableError extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = "StorageUnavailableError";
  }
}
