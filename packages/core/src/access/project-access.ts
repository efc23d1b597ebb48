import { actorPrincipal, type Actor } from "../kernel/actor.js";
import { defineCache, type Context } from "../kernel/context.js";
import { NotFoundError, PermissionDeniedError } from "../kernel/errors.js";
import {
  builtInProjectRoles,
  can,
  findBuiltInProjectRole,
  compileRules,
  isTemporaryActive,
  mergeRuleSources,
  type CompiledRules,
  type PermissionRule,
} from "../permissions/index.js";
import { ACCESS_CACHE_CAPACITY, ACCESS_CACHE_TTL_MS } from "./caches.js";
import { orgRoleOf, type OrgRole } from "./org-access.js";
import { accessRepository } from "./repository.js";
import type { MembershipRow, ProjectRow } from "./tables.js";
import { nextTemporaryChange } from "./temporary-change.js";

export type { MembershipRow, ProjectRow } from "./tables.js";

/** What an actor may do in one project, compiled once for the request. */
export interface ProjectAccess {
  readonly project: ProjectRow;
  readonly orgRole: OrgRole;
  readonly membership: MembershipRow | undefined;
  readonly rules: PermissionRule[];
  readonly compiled: CompiledRules;
  can(action: string, subject: string, object?: Record<string, unknown>): boolean;
  /** Throws 403 PermissionDenied naming the action and subject. */
  require(action: string, subject: string, object?: Record<string, unknown>): void;
  /**
   * Throws 403 unless the actor may `action` the object both as it is and as it will be after a
   * change (a rename, retag or move): a change never carries an object out of, or into, a scope
   * the actor is denied.
   */
  requireChange(action: string, subject: string, before: Record<string, unknown>, after: Record<string, unknown>): void;
  /** Throws 403 unless the actor is a member of the project or an organization admin. */
  requireMembership(): void;
}

export type ProjectRef = { projectId: string } | { projectSlug: string };

/** Finds a project the actor may know about: same organization, else 404. */
async function findVisibleProject(ctx: Context, actor: Actor, ref: ProjectRef): Promise<{ project: ProjectRow; orgRole: OrgRole }> {
  const repo = ctx.repo(accessRepository);
  let project: ProjectRow | undefined;
  if ("projectId" in ref) {
    project = await repo.projectById(ref.projectId);
  } else if (actor.type === "identity") {
    project = await repo.projectBySlug([actor.orgId], ref.projectSlug);
  } else if (actor.type === "user") {
    const orgIds = (await repo.orgMembershipsOfUser(actor.userId)).map((m) => m.orgId);
    project = await repo.projectBySlug(orgIds, ref.projectSlug);
  }
  const orgRole = project ? await orgRoleOf(ctx, actor, project.orgId) : undefined;
  if (!project || !orgRole) throw new NotFoundError("Project not found");
  return { project, orgRole };
}

/**
 * The actor's access to a project. Cached per actor and project (see access-cache.ts): an entry
 * lives until the TTL, until any operation that may change access completes, or until the next
 * moment a temporary role or privilege of the membership starts or ends, whichever comes first.
 */
export async function loadProjectAccess(ctx: Context, actor: Actor, ref: ProjectRef): Promise<ProjectAccess> {
  const key = accessKey(actor, ref);
  const now = ctx.clock.now();
  const cache = ctx.caches.get(projectAccessCache);
  const cached = key === undefined ? undefined : cache.get(key, now.getTime());
  if (cached) return cached;
  const version = cache.version;
  const { access, changesAt } = await readProjectAccess(ctx, actor, ref, now);
  if (key !== undefined) cache.set(key, access, { version, now: now.getTime(), until: changesAt });
  return access;
}

/** Per (actor, project reference): what the actor may do there. */
const projectAccessCache = defineCache<ProjectAccess>({
  name: "project-access",
  capacity: ACCESS_CACHE_CAPACITY,
  ttlMs: ACCESS_CACHE_TTL_MS,
  dependsOnAccess: true,
});

/** Who asks about which project; undefined for actors whose access is not cached (they have none). */
function accessKey(actor: Actor, ref: ProjectRef): string | undefined {
  const project = "projectId" in ref ? `id:${ref.projectId}` : `slug:${ref.projectSlug}`;
  if (actor.type === "user") return `user:${actor.userId}\u0000${project}`;
  if (actor.type === "identity") return `identity:${actor.identityId}:${actor.orgId}\u0000${project}`;
  return undefined;
}

async function readProjectAccess(ctx: Context, actor: Actor, ref: ProjectRef, now: Date): Promise<{ access: ProjectAccess; changesAt: number }> {
  const { project, orgRole } = await findVisibleProject(ctx, actor, ref);
  const principal = actorPrincipal(actor);
  const membership = principal ? await ctx.repo(accessRepository).projectMembership(project.id, principal) : undefined;
  let grants: MembershipGrants = { rules: [], changesAt: Number.POSITIVE_INFINITY };
  // Organization admins administer every project of their organization.
  if (orgRole === "admin") grants = { rules: builtInProjectRoles.admin.permissions, changesAt: Number.POSITIVE_INFINITY };
  else if (orgRole !== "no-access" && membership) grants = await membershipGrants(ctx, membership, now);
  return { access: projectAccessFrom(project, orgRole, membership, grants.rules), changesAt: grants.changesAt };
}

export function projectAccessFrom(
  project: ProjectRow,
  orgRole: OrgRole,
  membership: MembershipRow | undefined,
  rules: PermissionRule[],
): ProjectAccess {
  const compiled = compileRules(rules);
  return {
    project,
    orgRole,
    membership,
    rules,
    compiled,
    can: (action, subject, object) => can(compiled, action, subject, object),
    require(action, subject, object) {
      if (!can(compiled, action, subject, object)) {
        throw new PermissionDeniedError(`You are not allowed to ${action} on ${subject}`);
      }
    },
    requireChange(action, subject, before, after) {
      if (!can(compiled, action, subject, before) || !can(compiled, action, subject, after)) {
        throw new PermissionDeniedError(`You are not allowed to ${action} on ${subject}`);
      }
    },
    requireMembership() {
      if (rules.length === 0) throw new PermissionDeniedError("You are not a member of this project");
    },
  };
}

/** A membership's rules: its active roles (built-in or custom) then, for identities, its active privileges. */
export async function membershipRules(ctx: Context, membership: MembershipRow): Promise<PermissionRule[]> {
  return (await membershipGrants(ctx, membership, ctx.clock.now())).rules;
}

/** A membership's rules at `now`, and the first moment after it when they change (a temporary grant starts or ends). */
interface MembershipGrants {
  rules: PermissionRule[];
  changesAt: number;
}

async function membershipGrants(ctx: Context, membership: MembershipRow, now: Date): Promise<MembershipGrants> {
  const repo = ctx.repo(accessRepository);
  const assigned = await repo.rolesOf(membership.id);
  let changesAt = nextTemporaryChange(assigned, now);
  const roles = assigned.filter((r) => isTemporaryActive(r, now));
  const customIds = roles.filter((r) => r.customRoleId).map((r) => r.customRoleId as string);
  const custom = await repo.customRoles(customIds);
  const roleRules = roles.map((role) =>
    role.customRoleId
      ? ((custom.find((c) => c.id === role.customRoleId)?.permissions ?? []) as PermissionRule[])
      : (findBuiltInProjectRole(role.role)?.permissions ?? []),
  );
  let privilegeRules: PermissionRule[][] = [];
  if (membership.identityId) {
    const privileges = await repo.privilegesOf(membership.id);
    privilegeRules = privileges.filter((p) => isTemporaryActive(p, now)).map((p) => p.permissions as PermissionRule[]);
    changesAt = Math.min(changesAt, nextTemporaryChange(privileges, now));
  }
  return { rules: mergeRuleSources({ roles: roleRules, privileges: privilegeRules }), changesAt };
}
