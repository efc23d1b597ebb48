import type { ProjectAccess } from "../../access/project-access.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, ValidationError } from "../../kernel/errors.js";
import { findBuiltInProjectRole, type BuiltInProjectRoleSlug, type PermissionRule } from "../../permissions/index.js";
import { assertWithinBoundary, grantEnd, permanentWindow, temporaryWindow } from "../grants.js";
import { roleRepository } from "../roles/repository.js";
import type { RoleGrant } from "./repository.js";
import type { RoleAssignment } from "./schemas.js";

export const permanent = (role: string): RoleAssignment => ({ role, isTemporary: false });

/** A built-in role held for good, given without a granter (a project's creator becomes its admin). */
export const permanentBuiltIn = (role: BuiltInProjectRoleSlug): RoleGrant => ({
  role,
  customRoleId: null,
  isTemporary: false,
  ...permanentWindow,
});

interface ResolvedRole {
  role: string;
  customRoleId: string | null;
  permissions: PermissionRule[];
}

/** Built-in slug or custom role slug of the project; anything else is a 400. */
async function resolveRole(ctx: Context, projectId: string, slug: string): Promise<ResolvedRole> {
  const builtIn = findBuiltInProjectRole(slug);
  if (builtIn) return { role: slug, customRoleId: null, permissions: builtIn.permissions };
  const custom = await ctx.repo(roleRepository).bySlug(projectId, slug);
  if (!custom) throw new BadRequestError(`Unknown role '${slug}'`);
  return { role: "custom", customRoleId: custom.id, permissions: custom.permissions as PermissionRule[] };
}

/**
 * The roles to store for these assignments, in the granter's project: every role known, every
 * window valid, and nothing granted beyond what the granter holds for as long as each role lasts.
 */
export async function roleGrants(ctx: Context, granter: ProjectAccess, assignments: readonly RoleAssignment[]): Promise<RoleGrant[]> {
  const now = ctx.clock.now();
  const grants: RoleGrant[] = [];
  for (const assignment of assignments) {
    const resolved = await resolveRole(ctx, granter.project.id, assignment.role);
    const window = temporaryWindow(assignment, now);
    assertWithinBoundary(granter, resolved.permissions, { now, until: grantEnd(window) });
    grants.push({ role: resolved.role, customRoleId: resolved.customRoleId, isTemporary: assignment.isTemporary, ...window });
  }
  return grants;
}

/** A membership with only temporary roles would silently lose all access when they lapse. */
export function assertOnePermanent(roles: readonly RoleAssignment[]): void {
  if (!roles.some((r) => !r.isTemporary)) {
    throw new ValidationError([{ path: "roles", message: "At least one role must be permanent (isTemporary: false)" }]);
  }
}
