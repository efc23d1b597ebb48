export {
  CONDITION_FIELDS,
  conditionOperatorsSchema,
  fieldConditionSchema,
  permissionConditionsSchema,
  permissionRuleSchema,
  permissionRulesSchema,
  type ConditionField,
  type PermissionObject,
  type PermissionRule,
  type ValidPermissionRule,
} from "./schema.js";
export {
  ANY_ACTION,
  ANY_SUBJECT,
  PROJECT_PERMISSION_CATALOGUE,
  type ProjectPermissionAction,
  type ProjectPermissionSubject,
} from "./catalogue.js";
export { ACTION_ALIASES, SUBJECT_ALIASES, canonicalSubject, expandActions } from "./aliases.js";
export { GLOB_OPTIONS, globPredicate, type ValuePredicate } from "./glob.js";
export { UnsupportedConditionError, parseConditions, type FieldConstraint } from "./conditions.js";
export { CompiledRules, can, compileRules, type CheckedObject, type CompiledRule, type RuleBucket } from "./engine.js";
export { missingPermissions } from "./boundary.js";
export {
  builtInProjectRoleId,
  builtInProjectRoles,
  findBuiltInProjectRole,
  type BuiltInProjectRole,
  type BuiltInProjectRoleSlug,
} from "./built-in-roles.js";
export { MAX_DURATION_MS, parseDuration } from "./duration.js";
export { isTemporaryActive, temporaryAccessWindow, type Instant, type TemporaryGrant } from "./temporary-access.js";
export { mergeRuleSources, type RuleSources } from "./rule-sources.js";
export { actionsOf, allowedOnEvery, couldAllow, independentOf, widenedActions } from "./hypothetical.js";
export { grantWindow, rulesAt, rulesHeldThrough, timedSource, type TimedRuleSource } from "./held-rules.js";
