import type { ProjectAccess } from "../../../access/project-access.js";
import { actionsOf, independentOf } from "../../../permissions/hypothetical.js";
import { same } from "./rehearsal.js";

/** The fields of a secret's permission object beyond its place (environment and path). */
const SECRET_FIELDS = ["secretName", "secretTags"] as const;

/**
 * The caller's access for one write of many secrets, deciding once per place what can only
 * depend on the place. When no rule of the actor (for an action and those it could widen to)
 * looks at secret names or tags, every secret of one folder gets the same answer, so a batch of
 * 5,000 secrets in one folder is checked once per action instead of 5,000 times. Anything else —
 * another subject, a rule that looks at names or tags, a change that moves a secret — goes to
 * `access` as it is.
 */
export function placeAccess(access: ProjectAccess): ProjectAccess {
  const placeOnly = new Map<string, boolean>();
  const answers = new Map<string, boolean>();
  const passed = new Set<string>();
  const byPlace = (action: string): boolean => {
    let independent = placeOnly.get(action);
    if (independent === undefined) placeOnly.set(action, (independent = independentOf(access.compiled, "secrets", actionsOf("secrets", action), SECRET_FIELDS)));
    return independent;
  };
  const place = (action: string, object: Record<string, unknown>) => `${action}\u0000${String(object.environment)}\u0000${String(object.secretPath)}`;

  return {
    ...access,
    can(action, subject, object) {
      if (subject !== "secrets" || !object || !byPlace(action)) return access.can(action, subject, object);
      const key = place(action, object);
      let answer = answers.get(key);
      if (answer === undefined) answers.set(key, (answer = access.can(action, subject, object)));
      return answer;
    },
    couldAllow(action, subject, object, free, within) {
      if (subject !== "secrets" || within !== undefined || !byPlace(action)) return access.couldAllow(action, subject, object, free, within);
      const key = `could\u0000${place(action, object)}\u0000${free.join(",")}`;
      let answer = answers.get(key);
      if (answer === undefined) answers.set(key, (answer = access.couldAllow(action, subject, object, free, within)));
      return answer;
    },
    requireChange(action, subject, before, after, what) {
      // A change that leaves the secret where it is, as it is to the rules (a new value): decided by the place.
      if (subject !== "secrets" || !byPlace(action) || !same(before, after)) return access.requireChange(action, subject, before, after, what);
      const key = place(action, before);
      if (passed.has(key)) return;
      access.requireChange(action, subject, before, after, what);
      passed.add(key);
    },
  };
}
