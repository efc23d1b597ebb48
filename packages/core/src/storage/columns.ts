/**
 * Tables are declared once, here in core, as typed column maps. The row types, the in-memory
 * store, and the SQL adapters' migrations are all derived from these declarations, so a shape
 * is never written twice.
 */
export type ColumnKind = "text" | "integer" | "boolean" | "json" | "timestamp";

export interface Column<T = unknown> {
  readonly kind: ColumnKind;
  readonly nullable: boolean;
  /** Schema version that introduced the column; adapters add it to existing tables when they migrate past it. */
  readonly since: number;
  /** Phantom field carrying the TypeScript type of the value. */
  readonly __type?: T;
}

/** Column builders. `.null()` makes a column nullable; `.at(n)` marks the schema version that added it. */
export const text = () => withHelpers<string>("text");
export const integer = () => withHelpers<number>("integer");
export const boolean = () => withHelpers<boolean>("boolean");
/** ISO 8601 strings as produced by `Date#toISOString()`; they sort lexically in time order. */
export const timestamp = () => withHelpers<string>("timestamp");
export const json = <T = unknown>() => withHelpers<T>("json");

export interface ColumnBuilder<T> extends Column<T> {
  null(): ColumnBuilder<T | null>;
  at(version: number): ColumnBuilder<T>;
}

function withHelpers<T>(kind: ColumnKind, nullable = false, since = 1): ColumnBuilder<T> {
  return {
    kind,
    nullable,
    since,
    null: () => withHelpers<T | null>(kind, true, since),
    at: (version: number) => withHelpers<T>(kind, nullable, version),
  };
}

export type ColumnMap = Record<string, Column<any>>;



export interface TableDef<C extends ColumnMap = ColumnMap> {
  readonly name: string;
  readonly columns: C;
  /** Column groups that must be unique together. Every table's primary key is `id`. */
  // Plain strings here (checked against the columns in `defineTable`): `keyof C` would make
  // TableDef invariant in C, and then no concrete table would fit a `TableDef` parameter.
  readonly unique: readonly (readonly string[])[];
  /** Column groups to index for lookups. */
  readonly indexes: readonly (readonly string[])[];
  /** Indexes (not unique groups) the table once had, and the version that dropped each: migration drops them. */
  readonly retiredIndexes: readonly RetiredIndex[];
  /** Schema version that introduced the table. */
  readonly since: number;
}

export interface RetiredIndex {
  readonly columns: readonly string[];
  /** The schema version that dropped it. */
  readonly at: number;
}

export type RowOf<T extends TableDef> = {
  -readonly [K in keyof T["columns"]]: T["columns"][K] extends Column<infer V> ? V : never;
};

export function defineTable<C extends ColumnMap & { id: Column<string> }>(
  name: string,
  columns: C,
  options: {
    unique?: (keyof C & string)[][];
    indexes?: (keyof C & string)[][];
    retiredIndexes?: { columns: (keyof C & string)[]; at: number }[];
    since?: number;
  } = {},
): TableDef<C> {
  return {
    name,
    columns,
    unique: options.unique ?? [],
    indexes: options.indexes ?? [],
    retiredIndexes: options.retiredIndexes ?? [],
    since: options.since ?? 1,
  };
}

/** The version a database holding `schema` is at once fully migrated: the newest table or column. */
export function schemaVersion(schema: Record<string, TableDef>): number {
  return Math.max(
    ...Object.values(schema).flatMap((t) => [t.since, ...Object.values(t.columns).map((c) => c.since), ...t.retiredIndexes.map((i) => i.at)]),
  );
}
