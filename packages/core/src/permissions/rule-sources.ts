import type { PermissionRule } from "./schema.js";

export interface RuleSources {
  /** One rule list per active role, in assignment order. */
  roles: readonly (readonly PermissionRule[])[];
  /** One rule list per active additional privilege, oldest first. */
  privileges: readonly (readonly PermissionRule[])[];
}

/**
 * An actor's rules: roles first, then privileges, each in order. Order matters because the
 * last matching rule wins, so a privilege can override its roles. Callers drop expired sources.
 */
export function mergeRuleSources({ roles, privileges }: RuleSources): PermissionRule[] {
  return [...roles.flat(), ...privileges.flat()];
}
