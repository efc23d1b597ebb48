import { z } from "zod";
import type { ProjectAccess } from "../../access/project-access.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, PermissionBoundaryError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { findBuiltInProjectRole, missingPermissions, parseDuration, type PermissionRule } from "../../permissions/index.js";
import type { AccessRow } from "../../access/tables.js";
import type { AppStorage as Storage } from "../../schema.js";

/** One role given to a membership; temporary roles use a relative range from their start time. */
export const roleAssignmentSchema = z.object({
  role: z.string().min(1).max(64),
  isTemporary: z.boolean().default(false),
  temporaryMode: z.enum(["relative"]).optional(),
  temporaryRange: z.string().min(1).max(32).optional(),
  temporaryAccessStartTime: z.iso.datetime({ offset: true }).optional(),
});
export type RoleAssignment = z.output<typeof roleAssignmentSchema>;

export type MembershipRoleRow = AccessRow<"membershipRoles">;

interface ResolvedRole {
  role: string;
  customRoleId: string | null;
  permissions: PermissionRule[];
}

/** Built-in slug or custom role slug of the project; anything else is a 400. */
export async function resolveRole(storage: Storage, projectId: string, slug: string): Promise<ResolvedRole> {
  const builtIn = findBuiltInProjectRole(slug);
  if (builtIn) return { role: slug, customRoleId: null, permissions: builtIn.permissions };
  const custom = await storage.tables.projectRoles.findOne({ projectId, slug });
  if (!custom) throw new BadRequestError(`Unknown role '${slug}'`);
  return { role: "custom", customRoleId: custom.id, permissions: custom.permissions as PermissionRule[] };
}

/** Start and end of a temporary grant, or nulls for a permanent one. Invalid ranges are a 400. */
export function temporaryWindow(
  input: { isTemporary: boolean; temporaryMode?: string; temporaryRange?: string; temporaryAccessStartTime?: string },
  now: Date,
) {
  if (!input.isTemporary) {
    return { temporaryMode: null, temporaryRange: null, temporaryAccessStartTime: null, temporaryAccessEndTime: null };
  }
  if (!input.temporaryRange) throw new BadRequestError("A temporary grant needs temporaryRange");
  const ms = parseDuration(input.temporaryRange);
  if (ms === undefined) throw new BadRequestError(`Invalid temporaryRange '${input.temporaryRange}'; use a duration such as 30m, 1h or 7d`);
  const start = input.temporaryAccessStartTime ? new Date(input.temporaryAccessStartTime) : now;
  return {
    temporaryMode: input.temporaryMode ?? "relative",
    temporaryRange: input.temporaryRange,
    temporaryAccessStartTime: start.toISOString(),
    temporaryAccessEndTime: new Date(start.getTime() + ms).toISOString(),
  };
}

/** Nobody grants what they do not hold themselves. */
export function assertWithinBoundary(granter: ProjectAccess, granted: PermissionRule[]): void {
  const missing = missingPermissions(granter.compiled, granted);
  if (missing.length > 0) {
    throw new PermissionBoundaryError("You cannot grant permissions you do not hold yourself", missing);
  }
}

/** Replaces every role of a membership (inside the caller's transaction) after the boundary check. */
export async function replaceMembershipRoles(
  ctx: Context,
  tx: Storage,
  granter: ProjectAccess,
  membershipId: string,
  assignments: RoleAssignment[],
): Promise<MembershipRoleRow[]> {
  const now = ctx.clock.now();
  const rows: MembershipRoleRow[] = [];
  const granted: PermissionRule[] = [];
  for (const assignment of assignments) {
    const resolved = await resolveRole(tx, granter.project.id, assignment.role);
    granted.push(...resolved.permissions);
    rows.push({
      id: newId(),
      membershipId,
      role: resolved.role,
      customRoleId: resolved.customRoleId,
      isTemporary: assignment.isTemporary,
      ...temporaryWindow(assignment, now),
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    });
  }
  assertWithinBoundary(granter, granted);
  await tx.tables.membershipRoles.delete({ membershipId });
  await tx.tables.membershipRoles.insertMany(rows);
  return rows;
}
