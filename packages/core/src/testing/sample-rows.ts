import type { Column, RowOf, TableDef } from "../storage/columns.js";

/**
 * A deterministic row for any table, derived from its column kinds, so a new table or column is
 * exercised by the storage contract without anyone writing a fixture for it. Text values carry
 * quotes, backslashes, LIKE wildcards and non-ASCII characters, and integers exceed 32 bits, to
 * catch escaping and column-type mistakes.
 */
export function sampleRow<T extends TableDef>(def: T, seed: number, options: { nulls?: boolean } = {}): RowOf<T> {
  const row: Record<string, unknown> = {};
  for (const [name, column] of Object.entries(def.columns)) {
    row[name] = options.nulls && column.nullable ? null : sampleValue(def, name, column, seed);
  }
  return row as RowOf<T>;
}

function sampleValue(def: TableDef, name: string, column: Column, seed: number): unknown {
  if (name === "id") return `${def.name}-${seed}`;
  switch (column.kind) {
    case "text":
      return `${name} ${seed} ‘ü’ 'single' "double" \\ %_`;
    case "integer":
      return 2 ** 40 + seed;
    case "boolean":
      return seed % 2 === 0;
    case "timestamp":
      return new Date(Date.UTC(2026, 0, 1) + seed * 60_000).toISOString();
    case "json":
      return { seed, text: "ünï \"quoted\" \\ 'x'", list: [1, 2.5, true, null, "x"], nested: { empty: {}, none: null } };
  }
}
