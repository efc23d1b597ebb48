import { PROJECT_PERMISSION_CATALOGUE } from "./catalogue.js";
import { mayOverlap } from "./condition-logic.js";
import type { FieldConstraint } from "./conditions.js";
import { can, type CheckedObject, type CompiledRules } from "./engine.js";

/**
 * Checks about objects that are partly unknown or about to change: what authorizing a change
 * (DESIGN.md §11, "as it is and as it will be") and refusing without an existence oracle need.
 * Pure functions of the compiled rules.
 */

/** Every action a subject knows (the catalogue's), or just `fallback` for a subject it does not list. */
export function actionsOf(subject: string, fallback: string): readonly string[] {
  return Object.hasOwn(PROJECT_PERMISSION_CATALOGUE, subject)
    ? PROJECT_PERMISSION_CATALOGUE[subject as keyof typeof PROJECT_PERMISSION_CATALOGUE]
    : [fallback];
}

/**
 * The actions the rules allow on `after` but not on `before`: what a change from one to the other
 * would hand the actor. Empty when the change takes the object nowhere the actor has more rights.
 */
export function widenedActions(compiled: CompiledRules, subject: string, before: CheckedObject, after: CheckedObject, actions: readonly string[]): string[] {
  return actions.filter((action) => can(compiled, action, subject, after) && !can(compiled, action, subject, before));
}

/**
 * Whether some values of the `free` fields would let the rules allow `action` on the object (the
 * other fields as given). Conservative: true when unsure, never false when some values would
 * allow it. A rule whose only unmet conditions are on free fields may match (if it allows) or be
 * avoided (if it denies); the last matching rule decides, as in `can`.
 *
 * `within` narrows the free fields to values satisfying those constraints (a path below a folder).
 *
 * Used to refuse without saying whether the object exists: when no value of the unknown fields
 * could allow it, the answer is 403 whatever is stored.
 */
export function couldAllow(
  compiled: CompiledRules,
  action: string,
  subject: string,
  object: CheckedObject,
  free: readonly string[],
  within: readonly FieldConstraint[] = [],
): boolean {
  for (const rule of compiled.bucket(subject, action).rules) {
    if (rule.matches === null) return !rule.inverted;
    let freeConditions = false;
    let fixedHold = true;
    for (const constraint of rule.constraints) {
      if (free.includes(constraint.field)) freeConditions = true;
      else if (!constraint.test(object[constraint.field])) {
        fixedHold = false;
        break;
      }
    }
    if (!fixedHold) continue;
    if (!freeConditions) return !rule.inverted;
    // A deny that needs some free value can be avoided; an allow that some free value meets can match.
    if (!rule.inverted && mayOverlap(rule.constraints.filter((c) => free.includes(c.field)), within)) return true;
  }
  return false;
}

/**
 * Whether `fields` cannot change the rules' answer for these actions on `subject`: no rule that
 * could decide names one of them in its conditions. Lets a change that rewrites only those fields
 * of many objects skip checking each one.
 */
export function independentOf(compiled: CompiledRules, subject: string, actions: readonly string[], fields: readonly string[]): boolean {
  return actions.every((action) => compiled.bucket(subject, action).rules.every((rule) => rule.constraints.every((c) => !fields.includes(c.field))));
}

/** Whether the rules allow `action` on every object of `subject`, whatever its fields. */
export function allowedOnEvery(compiled: CompiledRules, action: string, subject: string): boolean {
  const [deciding] = compiled.bucket(subject, action).rules;
  return deciding !== undefined && deciding.matches === null && !deciding.inverted;
}
