import type { ProjectAccess } from "../access/project-access.js";
import { ANY_SUBJECT } from "../permissions/catalogue.js";
import { can, compileRules } from "../permissions/engine.js";
import { allowedOnEvery } from "../permissions/hypothetical.js";
import { SECRET_EVENTS_SUBJECT, SUBSCRIBE_ACTIONS, type SecretEventObject, type SecretEventPermission } from "./match.js";

const SECRETS_SUBJECT = "secrets";

/**
 * The actor's decision on receiving an event item: its `secret-events` action, and for an item
 * that names a secret, `describeSecret` on the secret (its environment, path, name and tags) — an
 * event never carries a name the receiver could not see in a list. When the rule that decides an
 * action is unconditional (as in the built-in roles) the answer is known without an object, which
 * spares building one per item per subscriber.
 */
export function permitsOf(access: ProjectAccess): SecretEventPermission {
  // Only the rules that can decide these checks are kept, compiled again: a subscription lives
  // long, and neither the rows its access was loaded from nor other subjects' rules matter.
  const compiled = compileRules(access.rules.filter((rule) => rule.subject === SECRET_EVENTS_SUBJECT || rule.subject === ANY_SUBJECT));
  const secretRules = compileRules(access.rules.filter((rule) => rule.subject === SECRETS_SUBJECT || rule.subject === ANY_SUBJECT));
  const describesAll = allowedOnEvery(secretRules, "describeSecret", SECRETS_SUBJECT);
  const describes = (object: SecretEventObject, secretTags: readonly string[] = []) =>
    object.secretName === undefined ||
    describesAll ||
    can(secretRules, "describeSecret", SECRETS_SUBJECT, {
      environment: object.environment,
      secretPath: object.secretPath,
      secretName: object.secretName,
      secretTags,
    });
  const fixed = new Map<string, boolean>();
  for (const action of Object.values(SUBSCRIBE_ACTIONS)) {
    const [deciding] = compiled.bucket(SECRET_EVENTS_SUBJECT, action).rules;
    if (deciding === undefined) fixed.set(action, false);
    else if (deciding.matches === null) fixed.set(action, !deciding.inverted);
  }
  return (action, object, secretTags) => (fixed.get(action) ?? can(compiled, action, SECRET_EVENTS_SUBJECT, object)) && describes(object, secretTags);
}
