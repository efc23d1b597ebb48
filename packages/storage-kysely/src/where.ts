import { operatorOf, type ColumnKind, type TableDef, type Where } from "@strongroom/core/storage";
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import { columnOf, encodeValue } from "./codec.js";
import type { Dialect } from "./dialect.js";

const COMPARISONS = { lt: "<", lte: "<=", gt: ">", gte: ">=" } as const;

type Builder = ExpressionBuilder<any, any>;

/** True when the condition constrains anything (fields set to `undefined` do not). */
export const hasConditions = (where: Where<any> | undefined): where is Where<any> =>
  where !== undefined && Object.values(where).some((value) => value !== undefined);

/**
 * Translates the port's `Where` into one SQL condition. NULL semantics follow the contract:
 * `null` is IS NULL, `ne` also matches NULL, and an `in` list may name NULL.
 */
export function whereClause(def: TableDef, where: Where<any>, dialect: Dialect): (eb: Builder) => Expression<SqlBool> {
  return (eb) => {
    const parts: Expression<SqlBool>[] = [];
    for (const [name, condition] of Object.entries(where)) {
      if (condition === undefined) continue;
      if (name === "$or") {
        parts.push(eb.or((condition as Where<any>[]).map((group) => whereClause(def, group, dialect)(eb))));
      } else {
        parts.push(fieldCondition(eb, def, name, condition, dialect));
      }
    }
    return eb.and(parts);
  };
}

function fieldCondition(eb: Builder, def: TableDef, name: string, condition: unknown, dialect: Dialect): Expression<SqlBool> {
  const kind = columnOf(def, name).kind;
  const ref = eb.ref(name);
  const encode = (value: unknown) => encodeValue(kind, value, dialect);

  if (condition === null) return eb(ref, "is", null);
  const operator = operatorOf(condition);
  if (!operator) return eb(ref, "=", encode(condition));
  const value = (condition as Record<string, unknown>)[operator];
  switch (operator) {
    case "in": {
      const values = value as unknown[];
      const present = values.filter((candidate) => candidate !== null).map(encode);
      const parts: Expression<SqlBool>[] = [];
      if (present.length > 0) parts.push(eb(ref, "in", present));
      if (present.length < values.length) parts.push(eb(ref, "is", null));
      return eb.or(parts);
    }
    case "ne":
      return value === null ? eb(ref, "is not", null) : eb.or([eb(ref, "<>", encode(value)), eb(ref, "is", null)]);
    case "contains":
      return contains(def, name, kind, String(value), dialect);
    default:
      return eb(ref, COMPARISONS[operator as keyof typeof COMPARISONS], encode(value));
  }
}

/** LIKE with the needle's own %, _ and \ escaped, so they match literally. */
function contains(def: TableDef, name: string, kind: ColumnKind, needle: string, dialect: Dialect): Expression<SqlBool> {
  if (kind === "integer" || kind === "boolean") throw new Error(`contains needs a text column, not ${def.name}.${name}`);
  return sql<SqlBool>`${sql.ref(name)} ${sql.raw(dialect.caseInsensitiveLike)} ${containsPattern(needle)} escape '\\'`;
}

export const containsPattern = (needle: string): string => `%${needle.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

