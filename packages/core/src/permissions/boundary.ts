import { canonicalSubject, expandActions } from "./aliases.js";
import { ANY_ACTION, ANY_SUBJECT } from "./catalogue.js";
import { implies, mayOverlap, unsatisfiable } from "./condition-logic.js";
import { makeConstraint, parseConditions, type FieldConstraint } from "./conditions.js";
import { CompiledRules, compileRules, type CompiledRule } from "./engine.js";
import type { PermissionRule } from "./schema.js";

// Splitting `$in` multiplies cases; past this many, the remaining `$in`s are reasoned about whole.
const MAX_CASES = 256;

/**
 * The requested conditions as a disjunction of cases: each `$in` becomes one equality per
 * value, so each value may be covered by a different rule of the granter.
 */
function cases(constraints: readonly FieldConstraint[]): FieldConstraint[][] {
  let result: FieldConstraint[][] = [constraints.filter((c) => c.op !== "in")];
  for (const c of constraints) {
    if (c.op !== "in") continue;
    if (result.length * c.values.length > MAX_CASES) {
      result = result.map((conjunction) => [...conjunction, c]);
      continue;
    }
    const equalities = c.values.map((v) => makeConstraint(c.field, "$eq", v));
    result = result.flatMap((conjunction) => equalities.map((eq) => [...conjunction, eq]));
  }
  return result.filter((conjunction) => !unsatisfiable(conjunction));
}

/** The rule could decide some check within `subject`/`action` (either may be a wildcard). */
function mayDecide(rule: CompiledRule, subject: string, action: string): boolean {
  const subjectHit = subject === ANY_SUBJECT || rule.subject === subject || rule.subject === ANY_SUBJECT;
  return subjectHit && (action === ANY_ACTION || rule.actions.includes(action) || rule.actions.includes(ANY_ACTION));
}

/** The rule applies to every check within `subject`/`action`. */
function spans(rule: CompiledRule, subject: string, action: string): boolean {
  return (
    (rule.subject === subject || rule.subject === ANY_SUBJECT) &&
    (rule.actions.includes(action) || rule.actions.includes(ANY_ACTION))
  );
}

/**
 * Whether the granter allows `action` on `subject` for every object satisfying `scope`. Walking
 * from the highest priority down, it succeeds at an allowing rule that contains the scope, as
 * long as no denying rule above it could match an object of the scope.
 */
function holdsEverywhere(granter: CompiledRules, subject: string, action: string, scope: readonly FieldConstraint[]): boolean {
  for (let i = granter.rules.length - 1; i >= 0; i--) {
    const rule = granter.rules[i];
    if (!mayDecide(rule, subject, action)) continue;
    if (rule.inverted) {
      if (mayOverlap(rule.constraints, scope)) return false;
    } else if (spans(rule, subject, action) && implies(scope, rule.constraints)) {
      return true;
    }
  }
  return false;
}

/**
 * The requested permissions the granter does not hold, one entry per rule and action, for the
 * 403 PermissionBoundaryError. Empty means the granter allows everything the requested rules
 * allow, for every object whose condition fields have the shapes CONDITION_FIELDS declares.
 * Conservative: when containment cannot be shown (say `/apps/*` held, `/apps/**` requested) the
 * permission is reported missing. Inverted requested rules only take away, so they need nothing.
 */
export function missingPermissions(granter: CompiledRules | readonly PermissionRule[], requested: readonly PermissionRule[]): PermissionRule[] {
  const held = granter instanceof CompiledRules ? granter : compileRules(granter);
  const missing = new Map<string, PermissionRule>();
  for (const rule of requested) {
    if (rule.inverted) continue;
    const scopes = cases(parseConditions(rule.conditions));
    const subject = canonicalSubject(rule.subject);
    for (const action of Array.isArray(rule.action) ? rule.action : [rule.action]) {
      const covered = expandActions(subject, [action]).every((implied) =>
        scopes.every((scope) => holdsEverywhere(held, subject, implied, scope)),
      );
      if (covered) continue;
      const entry: PermissionRule = { subject: rule.subject, action, ...(rule.conditions ? { conditions: rule.conditions } : {}) };
      missing.set(JSON.stringify(entry), entry);
    }
  }
  return [...missing.values()];
}
