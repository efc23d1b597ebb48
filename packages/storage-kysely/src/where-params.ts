import { operatorOf, type TableDef, type Where } from "@strongroom/core/storage";
import { columnOf, encodeValue } from "./codec.js";
import type { Dialect } from "./dialect.js";
import { containsPattern } from "./where.js";

/** A condition reduced to what its SQL text depends on (`key`) and the values it binds, in order. */
export interface WhereParams {
  readonly key: string;
  readonly params: unknown[];
}

/**
 * Walks a `Where` the way `whereClause` translates it, without building anything: two conditions
 * with the same key compile to the same SQL, so a statement compiled once serves both. The
 * parameter order must match the compiled statement's; the statement cache checks it on every
 * compile and stops caching a shape whose order differs.
 */
export function whereParams(def: TableDef, where: Where<any> | undefined, dialect: Dialect): WhereParams {
  const params: unknown[] = [];
  const key = where === undefined ? "" : walk(def, where, dialect, params);
  return { key, params };
}

function walk(def: TableDef, where: Where<any>, dialect: Dialect, params: unknown[]): string {
  let key = "";
  for (const name in where) {
    const condition = (where as Record<string, unknown>)[name];
    if (condition === undefined) continue;
    if (name === "$or") {
      key += "$or(";
      for (const group of condition as Where<any>[]) key += `${walk(def, group, dialect, params)};`;
      key += ")&";
    } else {
      key += `${name}${fieldParams(def, name, condition, dialect, params)}&`;
    }
  }
  return key;
}

/** The operator part of one field's key; pushes the field's parameters. */
function fieldParams(def: TableDef, name: string, condition: unknown, dialect: Dialect, params: unknown[]): string {
  const kind = columnOf(def, name).kind;
  if (condition === null) return " is null";
  const operator = operatorOf(condition);
  if (!operator) {
    params.push(encodeValue(kind, condition, dialect));
    return "=";
  }
  const value = (condition as Record<string, unknown>)[operator];
  switch (operator) {
    case "in": {
      const values = value as unknown[];
      let present = 0;
      for (const candidate of values) {
        if (candidate === null) continue;
        params.push(encodeValue(kind, candidate, dialect));
        present++;
      }
      return ` in ${present}${present < values.length ? "+null" : ""}`;
    }
    case "ne":
      if (value === null) return " ne null";
      params.push(encodeValue(kind, value, dialect));
      return " ne";
    case "contains":
      params.push(containsPattern(String(value)));
      return " contains";
    default:
      params.push(encodeValue(kind, value, dialect));
      return ` ${operator}`;
  }
}
