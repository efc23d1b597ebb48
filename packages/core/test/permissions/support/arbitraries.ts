/** fast-check generators for rule sets, checked objects and path-like globs (plain objects, as JSON input gives). */
import fc from "fast-check";
import type { PermissionRule } from "../../../src/permissions/index.js";

export const SUBJECTS = ["secrets", "role", "secret-folders", "all"] as const;
/** Subjects no generated rule names, so checks also take the fallback paths. */
export const CHECKED_SUBJECTS = [...SUBJECTS, "tags"] as const;
export const ACTIONS = ["read", "describeSecret", "readValue", "edit", "create", "manage"] as const;
export const CHECKED_ACTIONS = [...ACTIONS, "frobnicate"] as const;

/** Per field, a few values and globs, so that conditions, objects and patterns collide often. */
const POOLS = {
  environment: { values: ["dev", "prod", "prod-1"], globs: ["prod*", "*", "dev", ""] },
  secretPath: {
    values: ["/", "/apps", "/apps/a", "/apps/a/b", "/apps/.env", "/other"],
    globs: ["/", "/**", "/apps/*", "/apps/**", "/apps/a/**", "/apps/{a,b}", "/apps/?", "**", ""],
  },
  secretName: { values: ["A", "B", "DB_A"], globs: ["DB_*", "*", "A"] },
  eventType: { values: ["x", "y"], globs: ["x", "*"] },
  // Path-like tags too, so that glob reasoning meets arrays.
  secretTags: { values: ["a", "/a/x", "/b/y"], globs: ["a*", "*", "/a/**", "/b/*"] },
} as const;

type Field = keyof typeof POOLS;
export const FIELDS = Object.keys(POOLS) as Field[];
export const SCALAR_FIELDS = FIELDS.filter((f) => f !== "secretTags");

const valueOf = (field: Field) => fc.constantFrom(...POOLS[field].values);
const valuesOf = (field: Field) => fc.uniqueArray(valueOf(field), { maxLength: 3 });

/** An object with between min and max of the given keys, each value from make(key). */
const someOf = <K extends string, T>(keys: readonly K[], make: (key: K) => fc.Arbitrary<T>, minLength: number, maxLength: number) =>
  fc
    .subarray([...keys], { minLength, maxLength })
    .chain((chosen) => fc.tuple(...chosen.map(make)).map((values) => Object.fromEntries(chosen.map((k, i) => [k, values[i]])) as Partial<Record<K, T>>));

const operands = {
  $eq: (field: Field) => valueOf(field),
  $ne: (field: Field) => valueOf(field),
  $in: valuesOf,
  $all: valuesOf,
  $glob: (field: Field) => fc.constantFrom(...POOLS[field].globs),
};
type Operator = keyof typeof operands;

const fieldCondition = (field: Field) =>
  fc.oneof(valueOf(field), someOf(Object.keys(operands) as Operator[], (op): fc.Arbitrary<unknown> => operands[op](field), 1, 2));

// Mostly one or two fields: conditions that many generated objects satisfy.
export const conditionsArb = someOf(FIELDS, fieldCondition, 0, 2);

/** Conditions on some of `fields` only. */
export const conditionsOnArb = (fields: readonly Field[]) => someOf(fields, fieldCondition, 1, fields.length);

export const fieldsArb = fc.subarray(FIELDS, { minLength: 1, maxLength: 2 });

const subsets = <T>(items: readonly T[]): T[][] =>
  items.reduce<T[][]>((acc, item) => [...acc, ...acc.map((subset) => [...subset, item])], [[]]);

/** Every value a field can hold in the object model: absent, each pooled value, a stranger, or every tag subset. */
export function fieldUniverse(field: Field): unknown[] {
  const pooled = POOLS[field].values;
  return field === "secretTags" ? [undefined, ...subsets(pooled)] : [undefined, ...pooled, "/apps/x/y", "zz"];
}

/** Every model object over `fields` (the product of their universes). */
export const objectUniverse = (fields: readonly Field[]): Record<string, unknown>[] =>
  fields.reduce<Record<string, unknown>[]>(
    (objects, field) => objects.flatMap((object) => fieldUniverse(field).map((value) => (value === undefined ? object : { ...object, [field]: value }))),
    [{}],
  );

export const ruleArb: fc.Arbitrary<PermissionRule> = fc.record(
  {
    subject: fc.constantFrom(...SUBJECTS),
    action: fc.oneof(fc.constantFrom(...ACTIONS), fc.subarray([...ACTIONS], { minLength: 1, maxLength: 3 })),
    conditions: conditionsArb,
    inverted: fc.boolean(),
  },
  { requiredKeys: ["subject", "action"], noNullPrototype: true },
);

export const rulesArb = fc.array(ruleArb, { maxLength: 8 });

/** Any shape CASL's matcher might meet: a string, an array, or a non-string (or nothing). */
export const anyObjectArb = someOf(FIELDS, (field): fc.Arbitrary<unknown> =>
  fc.oneof(valueOf(field), fc.array(valueOf(field), { maxLength: 3 }), fc.constant(null), fc.integer({ min: 0, max: 2 })),
  0,
  FIELDS.length,
);

/** Objects shaped as CONDITION_FIELDS declares: scalar fields strings, secretTags an array of strings. */
export const modelObjectArb = someOf(
  FIELDS,
  (field): fc.Arbitrary<string | string[]> => (field === "secretTags" ? valuesOf(field) : valueOf(field)),
  0,
  FIELDS.length,
);

export interface Check {
  action: string;
  subject: string;
  object: Record<string, unknown> | undefined;
}

export const checkArb: fc.Arbitrary<Check> = fc.record({
  action: fc.constantFrom(...CHECKED_ACTIONS),
  subject: fc.constantFrom(...CHECKED_SUBJECTS),
  object: fc.option(anyObjectArb, { nil: undefined, freq: 4 }),
});

/**
 * A copy of a held rule for one of its actions, often with a condition added or replaced (on a
 * field the rule already constrains, half the time): near misses that probe the boundary check.
 */
export const narrowed = (rule: PermissionRule): fc.Arbitrary<PermissionRule> => {
  const constrained = Object.keys(rule.conditions ?? {}) as Field[];
  const field = constrained.length > 0 ? fc.oneof(fc.constantFrom(...constrained), fc.constantFrom(...FIELDS)) : fc.constantFrom(...FIELDS);
  return fc
    .record({
      action: fc.constantFrom(...(Array.isArray(rule.action) ? rule.action : [rule.action])),
      extra: fc.option(
        field.chain((f) => fieldCondition(f).map((condition) => [f, condition] as const)),
        { nil: undefined, freq: 1 },
      ),
    })
    .map(({ action, extra }) => ({
      subject: rule.subject,
      action,
      conditions: extra ? { ...rule.conditions, [extra[0]]: extra[1] } : rule.conditions,
    }));
};

/** A granter and requests that are often, but not always, within its reach. */
export const grantArb = rulesArb.chain((granter) => {
  const held = granter.filter((r) => !r.inverted);
  const request =
    held.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...held).chain(narrowed), weight: 4 }, { arbitrary: ruleArb, weight: 1 }) : ruleArb;
  return fc.record({ granter: fc.constant(granter), requested: fc.array(request, { maxLength: 3 }) });
});

// Path-like globs and strings from segments that exercise dots, stars and braces.
const literalSegment = fc.constantFrom("a", "b", "v1.2", "a-b");
const patternSegment = fc.oneof(literalSegment, fc.constantFrom(".x", "*", "**", "a*", "?", "{a,b}", "..", ".", ""));
const stringSegment = fc.oneof(literalSegment, fc.constantFrom(".x", "..", ".", "", "*", "ab"));
const joinPath = (segments: readonly string[]): string => `/${segments.join("/")}`;
const tail = (segment: fc.Arbitrary<string>) => fc.array(segment, { minLength: 1, maxLength: 3 });

export const pathGlobArb = tail(patternSegment).map(joinPath);
export const pathArb = fc.oneof(
  fc.array(stringSegment, { minLength: 1, maxLength: 5 }).map(joinPath),
  fc.constantFrom("/", "", "a", "//"),
);

/** Two globs and some paths below a shared literal folder, so that they often match together. */
export const globsInFolderArb = fc
  .record({
    base: fc.array(literalSegment, { maxLength: 2 }),
    a: tail(patternSegment),
    b: tail(patternSegment),
    paths: fc.array(fc.array(stringSegment, { maxLength: 3 }), { maxLength: 20 }),
    recursive: fc.boolean(),
  })
  .map(({ base, a, b, paths, recursive }) => ({
    a: recursive ? joinPath([...base, "**"]) : joinPath([...base, ...a]),
    b: joinPath([...base, ...b]),
    paths: paths.map((rest) => joinPath([...base, ...rest])),
  }));
