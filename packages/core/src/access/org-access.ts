import type { Actor } from "../kernel/actor.js";
import type { Context } from "../kernel/context.js";
import { BadRequestError, NotFoundError, PermissionDeniedError } from "../kernel/errors.js";
import { accessRepository } from "./repository.js";

export const ORG_ROLES = ["admin", "member", "no-access"] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

/** The actor's role in an organization, or undefined when it does not belong there. */
export async function orgRoleOf(ctx: Context, actor: Actor, orgId: string): Promise<OrgRole | undefined> {
  if (actor.type === "identity") {
    if (actor.orgId !== orgId) return undefined;
    const identity = await ctx.repo(accessRepository).identity(actor.identityId);
    return identity ? (identity.role as OrgRole) : undefined;
  }
  if (actor.type === "user") {
    const membership = await ctx.repo(accessRepository).orgMembership(orgId, actor.userId);
    return membership ? (membership.role as OrgRole) : undefined;
  }
  return undefined;
}

/**
 * 404 when the actor is not in the organization (it may not know the organization exists),
 * 403 when it is but its role is not one of `allowed`.
 */
export async function requireOrgRole(ctx: Context, actor: Actor, orgId: string, allowed: readonly OrgRole[]): Promise<OrgRole> {
  const role = await orgRoleOf(ctx, actor, orgId);
  if (!role) throw new NotFoundError("Organization not found");
  if (!allowed.includes(role)) {
    throw new PermissionDeniedError(`Organization role '${role}' may not perform this action`);
  }
  return role;
}

/**
 * The organization an actor acts in: an identity's own; for a user the one named, or the only
 * one it belongs to (several → the caller must name one).
 */
export async function resolveActingOrg(ctx: Context, actor: Actor, organizationId?: string): Promise<string> {
  if (actor.type === "identity") {
    if (organizationId && organizationId !== actor.orgId) throw new NotFoundError("Organization not found");
    return actor.orgId;
  }
  if (actor.type !== "user") throw new PermissionDeniedError();
  if (organizationId) return organizationId;
  const memberships = await ctx.repo(accessRepository).orgMembershipsOfUser(actor.userId);
  if (memberships.length === 1) return memberships[0].orgId;
  if (memberships.length === 0) throw new PermissionDeniedError("You do not belong to any organization");
  throw new BadRequestError("You belong to several organizations: pass organizationId");
}
