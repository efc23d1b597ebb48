/**
 * CASL configured to mean what our engine means, as the reference the differential test and the
 * benchmark compare against: `createMongoAbility` with a `$glob` operator that evaluates the
 * same glob predicate, and the subject-scoped `read` alias written out independently.
 */
import { buildMongoQueryMatcher, createMongoAbility, subject as asSubject, type MongoAbility } from "@casl/ability";
import { globPredicate, type PermissionRule, type ValuePredicate } from "../../../src/permissions/index.js";

interface GlobNode {
  operator: "glob";
  field: string;
  value: ValuePredicate;
}

// The pattern is compiled once per rule while CASL parses the conditions, as our engine does.
const globInstruction = {
  type: "field",
  parse: (_instruction: unknown, pattern: string, { field }: { field: string }): GlobNode => ({
    operator: "glob",
    field,
    value: globPredicate(pattern),
  }),
};

function interpretGlob(node: GlobNode, object: unknown, { get }: { get: (object: unknown, field: string) => unknown }): boolean {
  const value = get(object, node.field);
  return Array.isArray(value) ? value.some(node.value) : node.value(value);
}

// CASL's factory types cannot describe a custom operator; these are the shapes ucast calls.
const conditionsMatcher = buildMongoQueryMatcher({ $glob: globInstruction } as never, { glob: interpretGlob } as never);

/** CASL's aliases are global; ours apply to `read` on secrets (and `all`, which covers secrets). */
function withReadAlias(rule: PermissionRule): PermissionRule {
  const actions = Array.isArray(rule.action) ? rule.action : [rule.action];
  if ((rule.subject !== "secrets" && rule.subject !== "all") || !actions.includes("read")) return rule;
  return { ...rule, action: [...actions, "describeSecret", "readValue"] };
}

export type CaslAbility = MongoAbility;

export function caslAbility(rules: readonly PermissionRule[]): CaslAbility {
  return createMongoAbility(rules.map(withReadAlias) as never[], { conditionsMatcher });
}

/** An object tagged with its subject type the way CASL expects; tag once, check many times. */
export function caslObject(subject: string, object: Record<string, unknown>): Record<string, unknown> {
  return asSubject(subject, { ...object });
}

export function caslCan(ability: CaslAbility, action: string, subject: string, taggedObject?: Record<string, unknown>): boolean {
  return taggedObject === undefined ? ability.can(action, subject) : ability.can(action, taggedObject as never);
}
