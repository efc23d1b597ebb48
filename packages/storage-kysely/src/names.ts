import { createHash } from "node:crypto";
import type { TableDef } from "@strongroom/core/storage";

/** PostgreSQL silently truncates longer identifiers, which could make two index names collide. */
const MAX_IDENTIFIER = 63;

/** Deterministic index name, so migrations are idempotent and violations map back to their columns. */
export function indexName(table: string, columns: readonly string[], unique: boolean): string {
  const name = `${table}_${columns.join("_")}_${unique ? "key" : "idx"}`;
  if (name.length <= MAX_IDENTIFIER) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_IDENTIFIER - 9)}_${hash}`;
}

/** The primary key's constraint name as PostgreSQL generates it for `id ... primary key`. */
export const primaryKeyName = (table: string) => `${table}_pkey`;

/** The columns behind a constraint or unique index name, if it is one of this table's. */
export function uniqueColumnsOf(def: TableDef, name: string): string[] | undefined {
  if (name === primaryKeyName(def.name)) return ["id"];
  const group = def.unique.find((columns) => indexName(def.name, columns, true) === name);
  return group && [...group];
}
