/**
 * Set reasoning over conjunctions of FieldConstraints, for the permission boundary. Every
 * answer is conservative: `implies` may say false when it holds, `mayOverlap` may say true
 * when the sets are disjoint, never the other way round.
 *
 * The checked object is assumed to have the shapes CONDITION_FIELDS declares: a scalar field is
 * a string or absent, a list field an array of strings or absent. Fields outside the table may
 * hold anything, so only shape-independent facts are used for them.
 */
import { globContains, globsDisjoint } from "./glob-scope.js";
import type { FieldConstraint } from "./conditions.js";
import { CONDITION_FIELDS } from "./schema.js";

type FieldKind = "scalar" | "list" | "any";

const kindOf = (field: string): FieldKind =>
  Object.hasOwn(CONDITION_FIELDS, field) ? CONDITION_FIELDS[field as keyof typeof CONDITION_FIELDS] : "any";

/** What every value satisfying a conjunction of constraints on one field is known to have. */
interface FieldFacts {
  readonly kind: FieldKind;
  readonly constraints: readonly FieldConstraint[];
  /** Strings certainly among the value's elements (a scalar's only element is itself). */
  readonly present: ReadonlySet<string>;
  /** The value is certainly an array. */
  readonly isArray: boolean;
  /** For scalars pinned by equality or `$in`: the only values it can take. */
  readonly candidates: readonly string[] | undefined;
}

function factsFor(field: string, constraints: readonly FieldConstraint[]): FieldFacts {
  const kind = kindOf(field);
  const present = new Set<string>();
  let isArray = false;
  let candidates: string[] | undefined;
  for (const c of constraints) {
    if (c.op === "eq") present.add(c.value);
    if (c.op === "all") for (const v of c.values) present.add(v);
    // Any existential condition needs an element, and a list field only has elements as an array.
    if (c.op === "all" || (kind === "list" && c.op !== "ne")) isArray = true;
    const allowed = c.op === "eq" ? [c.value] : c.op === "in" ? c.values : undefined;
    if (kind === "scalar" && allowed) {
      candidates = candidates === undefined ? [...allowed] : candidates.filter((v) => allowed.includes(v));
    }
  }
  return { kind, constraints, present, isArray, candidates };
}

function factsByField(constraints: readonly FieldConstraint[]): Map<string, FieldFacts> {
  const grouped = new Map<string, FieldConstraint[]>();
  for (const c of constraints) {
    const list = grouped.get(c.field);
    if (list) list.push(c);
    else grouped.set(c.field, [c]);
  }
  return new Map([...grouped].map(([field, list]) => [field, factsFor(field, list)]));
}

/** True when no object can satisfy the constraints (a scalar never satisfies `$all`, `$in: []` nothing). */
export function unsatisfiable(constraints: readonly FieldConstraint[]): boolean {
  for (const facts of factsByField(constraints).values()) {
    if (facts.constraints.some((c) => (c.op === "glob" && c.pattern === "") || (c.op === "in" && c.values.length === 0))) return true;
    if (facts.kind === "scalar" && facts.isArray) return true;
    const { candidates } = facts;
    if (candidates && !candidates.some((v) => facts.constraints.every((c) => c.test(v)))) return true;
  }
  return false;
}

function impliedOnField(facts: FieldFacts, held: FieldConstraint): boolean {
  const { kind, constraints, present } = facts;
  // A scalar limited to known values: decide by trying each.
  if (facts.candidates) return facts.candidates.every((v) => !constraints.every((c) => c.test(v)) || held.test(v));
  switch (held.op) {
    case "eq":
    case "in":
    case "glob":
      // Existential: some element satisfies it. A known element that does settles it.
      if ([...present].some((v) => held.test(v))) return true;
      return constraints.some(
        (c) =>
          (c.op === "in" && c.values.every((v) => held.test(v))) ||
          (c.op === "glob" && held.op === "glob" && globContains(held.pattern, c.pattern)),
      );
    case "all":
      return facts.isArray && held.values.every((v) => present.has(v));
    case "ne":
      // A scalar that satisfies something `held.value` fails cannot be `held.value`.
      return constraints.some((c) => (c.op === "ne" && c.value === held.value) || (kind === "scalar" && !c.test(held.value)));
  }
}

/** Whether every object satisfying `requested` satisfies `held` (false when unsure). */
export function implies(requested: readonly FieldConstraint[], held: readonly FieldConstraint[]): boolean {
  if (held.length === 0 || unsatisfiable(requested)) return true;
  const facts = factsByField(requested);
  return held.every((c) => impliedOnField(facts.get(c.field) ?? factsFor(c.field, []), c));
}

function disjointOnField(a: FieldFacts, b: FieldFacts): boolean {
  const both = [...a.constraints, ...b.constraints];
  const candidates = a.candidates ?? b.candidates;
  if (candidates) return !candidates.some((v) => both.every((c) => c.test(v)));
  const excluded = (facts: FieldFacts, value: string) => facts.constraints.some((c) => c.op === "ne" && c.value === value);
  const contradicts = (x: FieldFacts, y: FieldFacts) =>
    [...x.present].some((v) => excluded(y, v)) ||
    x.constraints.some((c) => c.op === "in" && c.values.every((v) => excluded(y, v)));
  if (contradicts(a, b) || contradicts(b, a)) return true;
  // One string cannot lie in two separate folder trees; an array's elements can.
  if (a.kind !== "scalar") return false;
  const globs = both.flatMap((c) => (c.op === "glob" ? [c.pattern] : []));
  return globs.some((p, i) => globs.slice(i + 1).some((q) => globsDisjoint(p, q)));
}

/** Whether some object could satisfy both conjunctions (true when unsure). */
export function mayOverlap(a: readonly FieldConstraint[], b: readonly FieldConstraint[]): boolean {
  if (unsatisfiable(a) || unsatisfiable(b)) return false;
  const factsA = factsByField(a);
  for (const [field, factsB] of factsByField(b)) {
    const facts = factsA.get(field);
    if (facts && disjointOnField(facts, factsB)) return false;
  }
  return true;
}
