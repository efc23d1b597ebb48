import { loadProjectAccess, type ProjectAccess, type ProjectRef } from "../../access/project-access.js";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId, randomAlphanumeric } from "../../kernel/ids.js";
import { assertWithinBoundary, temporaryWindow } from "../memberships/role-assignments.js";
import type { PermissionRule } from "../../permissions/index.js";
import type { AccessRow } from "../../access/tables.js";

export type PrivilegeRow = AccessRow<"identityPrivileges">;

/** The identity, its project membership, and the caller's access in that project. */
export interface PrivilegeTarget {
  access: ProjectAccess;
  identityId: string;
  membershipId: string;
}

export interface TemporaryInput {
  isTemporary: boolean;
  temporaryMode?: string;
  temporaryRange?: string;
  temporaryAccessStartTime?: string;
}

/**
 * Reading privileges needs `read` on `identity`; changing them needs `grant-privileges`.
 * An identity outside the project's organization, or not a member of the project, is a 404.
 */
export async function privilegeTarget(
  ctx: Context,
  actor: Actor,
  project: ProjectRef,
  identityId: string,
  intent: "read" | "grant",
): Promise<PrivilegeTarget> {
  const access = await loadProjectAccess(ctx, actor, project);
  access.require(intent === "read" ? "read" : "grant-privileges", "identity");
  const identity = await ctx.storage.tables.identities.get(identityId);
  if (!identity || identity.orgId !== access.project.orgId) throw new NotFoundError("Identity not found");
  const membership = await ctx.storage.tables.projectMemberships.findOne({ projectId: access.project.id, identityId });
  if (!membership) throw new NotFoundError("The identity is not a member of this project");
  return { access, identityId, membershipId: membership.id };
}

/** A privilege addressed by id: the caller must be able to see its project. */
export async function privilegeById(ctx: Context, actor: Actor, id: string, intent: "read" | "grant") {
  const row = await ctx.storage.tables.identityPrivileges.get(id);
  if (!row) throw new NotFoundError("Privilege not found");
  const target = await privilegeTarget(ctx, actor, { projectId: row.projectId }, row.identityId, intent).catch((error) => {
    throw error instanceof NotFoundError ? new NotFoundError("Privilege not found") : error;
  });
  return { target, row };
}

export async function privilegeBySlug(ctx: Context, target: PrivilegeTarget, slug: string): Promise<PrivilegeRow> {
  const row = await ctx.storage.tables.identityPrivileges.findOne({ projectMembershipId: target.membershipId, slug });
  if (!row) throw new NotFoundError(`Privilege '${slug}' not found`);
  return row;
}

export async function listPrivileges(ctx: Context, target: PrivilegeTarget): Promise<PrivilegeRow[]> {
  return ctx.storage.tables.identityPrivileges.find({ projectMembershipId: target.membershipId }, { orderBy: [["createdAt", "asc"]] });
}

export async function createPrivilege(
  ctx: Context,
  target: PrivilegeTarget,
  input: { slug?: string; permissions: PermissionRule[] } & TemporaryInput,
): Promise<PrivilegeRow> {
  assertWithinBoundary(target.access, input.permissions);
  const slug = input.slug ?? `privilege-${randomAlphanumeric(10).toLowerCase()}`;
  await assertSlugFree(ctx, target, slug);
  const now = ctx.clock.now();
  const row: PrivilegeRow = {
    id: newId(),
    projectMembershipId: target.membershipId,
    identityId: target.identityId,
    projectId: target.access.project.id,
    slug,
    permissions: input.permissions,
    isTemporary: input.isTemporary,
    ...temporaryWindow(input, now),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await ctx.storage.tables.identityPrivileges.insert(row);
  return row;
}

export async function updatePrivilege(
  ctx: Context,
  target: PrivilegeTarget,
  row: PrivilegeRow,
  patch: { slug?: string; permissions?: PermissionRule[]; temporary?: TemporaryInput },
): Promise<PrivilegeRow> {
  if (patch.permissions) assertWithinBoundary(target.access, patch.permissions);
  if (patch.slug && patch.slug !== row.slug) await assertSlugFree(ctx, target, patch.slug);
  const now = ctx.clock.now();
  const changes: Partial<PrivilegeRow> = {
    ...(patch.slug !== undefined && { slug: patch.slug }),
    ...(patch.permissions !== undefined && { permissions: patch.permissions }),
    ...(patch.temporary !== undefined && { isTemporary: patch.temporary.isTemporary, ...temporaryWindow(patch.temporary, now) }),
    updatedAt: now.toISOString(),
  };
  await ctx.storage.tables.identityPrivileges.update({ id: row.id }, changes);
  return { ...row, ...changes };
}

export async function deletePrivilege(ctx: Context, row: PrivilegeRow): Promise<PrivilegeRow> {
  await ctx.storage.tables.identityPrivileges.delete({ id: row.id });
  return row;
}

async function assertSlugFree(ctx: Context, target: PrivilegeTarget, slug: string): Promise<void> {
  if (await ctx.storage.tables.identityPrivileges.findOne({ projectMembershipId: target.membershipId, slug })) {
    throw new BadRequestError(`A privilege with slug '${slug}' already exists for this identity`);
  }
}
