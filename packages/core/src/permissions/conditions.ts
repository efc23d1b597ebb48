import { UnsupportedGlobError, globPredicate, type ValuePredicate } from "./glob.js";

/**
 * One parsed condition on one field. `test` receives the checked object's field value, whatever
 * its shape, and answers as CASL's MongoDB-style matcher does: when the value is an array,
 * equality and `$in` hold if any element does, `$all` needs every listed value among the
 * elements, and a non-array never satisfies `$all`.
 */
export type FieldConstraint =
  | { readonly field: string; readonly op: "eq" | "ne"; readonly value: string; readonly test: ValuePredicate }
  | { readonly field: string; readonly op: "in" | "all"; readonly values: readonly string[]; readonly test: ValuePredicate }
  | {
      readonly field: string;
      readonly op: "glob";
      readonly pattern: string;
      readonly test: ValuePredicate;
      /**
       * Outside the supported glob syntax: only a rule stored before extglobs were refused. Its
       * test matches nothing; the engine drops it from denials instead, so that such a rule
       * grants nothing and denies more, never less.
       */
      readonly unsupported?: true;
    };

export type ConstraintOp = FieldConstraint["op"];

/** Raised for conditions the engine cannot evaluate; input validated by permissionRuleSchema never does. */
export class UnsupportedConditionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsupportedConditionError";
  }
}

const anyElement =
  (predicate: ValuePredicate): ValuePredicate =>
  (value) =>
    Array.isArray(value) ? value.some(predicate) : predicate(value);

// Short lists are scanned; a Set only pays off once there are more than a handful of values.
function membership(values: readonly string[]): ValuePredicate {
  if (values.length > 8) {
    const set = new Set<unknown>(values);
    return (value) => set.has(value);
  }
  return (value) => values.includes(value as string);
}

function equalTo(value: string): ValuePredicate {
  return (actual) => actual === value || (Array.isArray(actual) && actual.includes(value));
}

/** Parses one operator (`$eq`, `$ne`, `$in`, `$all`, `$glob`) applied to `field`. */
export function makeConstraint(field: string, operator: string, operand: unknown): FieldConstraint {
  const where = `condition on '${field}'`;
  const text = (): string => {
    if (typeof operand !== "string") throw new UnsupportedConditionError(`${where}: ${operator} expects a string`);
    return operand;
  };
  const list = (): string[] => {
    if (!Array.isArray(operand) || !operand.every((v) => typeof v === "string")) {
      throw new UnsupportedConditionError(`${where}: ${operator} expects an array of strings`);
    }
    return [...new Set(operand)];
  };
  switch (operator) {
    case "$eq": {
      const value = text();
      return { field, op: "eq", value, test: equalTo(value) };
    }
    case "$ne": {
      const value = text();
      const equal = equalTo(value);
      return { field, op: "ne", value, test: (actual) => !equal(actual) };
    }
    case "$in": {
      const values = list();
      return { field, op: "in", values, test: anyElement(membership(values)) };
    }
    case "$all": {
      const values = list();
      return {
        field,
        op: "all",
        values,
        test: (actual) => Array.isArray(actual) && values.every((v) => actual.includes(v)),
      };
    }
    case "$glob": {
      const pattern = text();
      try {
        return { field, op: "glob", pattern, test: anyElement(globPredicate(pattern)) };
      } catch (error) {
        if (!(error instanceof UnsupportedGlobError)) throw error;
        return { field, op: "glob", pattern, test: () => false, unsupported: true };
      }
    }
    default:
      throw new UnsupportedConditionError(`${where}: unknown operator ${operator}`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Parses a rule's conditions into constraints that must all hold. */
export function parseConditions(conditions: Record<string, unknown> | undefined): FieldConstraint[] {
  if (conditions === undefined) return [];
  if (!isPlainObject(conditions)) throw new UnsupportedConditionError("conditions must be an object");
  const constraints: FieldConstraint[] = [];
  for (const [field, condition] of Object.entries(conditions)) {
    // CASL reads dotted names as nested paths and `$`-names as query operators; we support neither.
    if (field === "" || field.includes(".") || field.startsWith("$")) {
      throw new UnsupportedConditionError(`unsupported condition field '${field}'`);
    }
    if (typeof condition === "string") {
      constraints.push(makeConstraint(field, "$eq", condition));
    } else if (isPlainObject(condition) && Object.keys(condition).length > 0) {
      for (const [operator, operand] of Object.entries(condition)) constraints.push(makeConstraint(field, operator, operand));
    } else {
      throw new UnsupportedConditionError(`condition on '${field}' must be a string or an object of operators`);
    }
  }
  return constraints;
}

export type ObjectPredicate = (object: Readonly<Record<string, unknown>>) => boolean;

// Globs run a regular expression, so they go last and only when the cheap comparisons pass.
const cost = (c: FieldConstraint): number => (c.op === "glob" ? 1 : 0);

/** One predicate over the checked object for a conjunction of constraints (none: always true). */
export function conjunction(constraints: readonly FieldConstraint[]): ObjectPredicate {
  const ordered = [...constraints].sort((a, b) => cost(a) - cost(b));
  // Fields and tests are copied into locals: reading them off the constraints, whose shapes
  // differ per operator, would make every check pay for a polymorphic property load.
  const fields = ordered.map((c) => c.field);
  const tests = ordered.map((c) => c.test);
  switch (ordered.length) {
    case 0:
      return () => true;
    case 1: {
      const [field] = fields;
      const [test] = tests;
      return (object) => test(object[field]);
    }
    case 2: {
      const [f1, f2] = fields;
      const [t1, t2] = tests;
      return (object) => t1(object[f1]) && t2(object[f2]);
    }
    case 3: {
      const [f1, f2, f3] = fields;
      const [t1, t2, t3] = tests;
      return (object) => t1(object[f1]) && t2(object[f2]) && t3(object[f3]);
    }
    default:
      return (object) => {
        for (let i = 0; i < tests.length; i++) if (!tests[i](object[fields[i]])) return false;
        return true;
      };
  }
}
