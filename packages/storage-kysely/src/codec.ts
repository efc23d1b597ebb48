import type { Column, ColumnKind, TableDef } from "@strongroom/core/storage";
import type { Dialect } from "./dialect.js";

/**
 * Values cross into SQL by column kind: JSON as text, timestamps as ISO text, booleans as the
 * dialect binds them, and integers come back as numbers (PostgreSQL returns bigint as a string).
 */

type Row = { id: string } & Record<string, unknown>;

export function columnOf(def: TableDef, name: string): Column {
  const column = def.columns[name];
  if (!column) throw new Error(`${def.name} has no column ${name}`);
  return column;
}

export function encodeValue(kind: ColumnKind, value: unknown, dialect: Dialect): unknown {
  if (value === null || value === undefined) return null;
  if (kind === "json") return JSON.stringify(value);
  if (kind === "boolean") return dialect.encodeBoolean(value as boolean);
  return value;
}

function decodeValue(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case "json":
      return JSON.parse(value as string);
    case "boolean":
      return value === true || value === 1;
    case "integer":
      return Number(value);
    default:
      return value;
  }
}

/** Appends every column's value to `out`, in declaration order; a missing value is NULL. */
export function encodeRowInto(out: unknown[], def: TableDef, row: Record<string, unknown>, dialect: Dialect): void {
  for (const name in row) columnOf(def, name);
  for (const [name, column] of columnsOf(def)) out.push(encodeValue(column.kind, row[name], dialect));
}

/** Only the fields the patch sets; `undefined` means "leave as is". */
export function encodePatch(def: TableDef, patch: Record<string, unknown>, dialect: Dialect): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(patch)) {
    if (value !== undefined) out[name] = encodeValue(columnOf(def, name).kind, value, dialect);
  }
  return out;
}

export function decodeRow(def: TableDef, raw: Record<string, unknown>): Row {
  // The driver's row object is this read's own: decoded in place, only the columns that need it
  // (a list of thousands of rows then allocates one object per row, not two).
  for (const [name, kind] of convertedColumnsOf(def)) raw[name] = decodeValue(kind, raw[name]);
  return raw as Row;
}

const convertedLists = new WeakMap<TableDef, [string, ColumnKind][]>();

/** Columns whose stored value is not already the row's value: JSON, booleans, integers. */
function convertedColumnsOf(def: TableDef): [string, ColumnKind][] {
  let list = convertedLists.get(def);
  if (!list) {
    list = columnsOf(def).flatMap(([name, column]): [string, ColumnKind][] => (column.kind === "json" || column.kind === "boolean" || column.kind === "integer" ? [[name, column.kind]] : []));
    convertedLists.set(def, list);
  }
  return list;
}

const columnLists = new WeakMap<TableDef, [string, Column][]>();

/** A table's columns in declaration order, listed once rather than on every row. */
function columnsOf(def: TableDef): [string, Column][] {
  let list = columnLists.get(def);
  if (!list) columnLists.set(def, (list = Object.entries(def.columns)));
  return list;
}
