import type { ProjectAccess } from "../access/project-access.js";
import { ANY_SUBJECT } from "../permissions/catalogue.js";
import { can, compileRules } from "../permissions/engine.js";
import { SECRET_EVENTS_SUBJECT, SUBSCRIBE_ACTIONS, type SecretEventPermission } from "./match.js";

/**
 * The actor's `secret-events` decision. When the rule that decides an action is unconditional
 * (as in the built-in roles) the answer is known without an object, which spares building one
 * per item per subscriber.
 */
export function permitsOf(access: ProjectAccess): SecretEventPermission {
  // Only the rules that can decide a secret-events check are kept, compiled again: a subscription
  // lives long, and neither the rows its access was loaded from nor other subjects' rules matter.
  const compiled = compileRules(access.rules.filter((rule) => rule.subject === SECRET_EVENTS_SUBJECT || rule.subject === ANY_SUBJECT));
  const fixed = new Map<string, boolean>();
  for (const action of Object.values(SUBSCRIBE_ACTIONS)) {
    const [deciding] = compiled.bucket(SECRET_EVENTS_SUBJECT, action).rules;
    if (deciding === undefined) fixed.set(action, false);
    else if (deciding.matches === null) fixed.set(action, !deciding.inverted);
  }
  return (action, object) => fixed.get(action) ?? can(compiled, action, SECRET_EVENTS_SUBJECT, object);
}
