import { actorPrincipal, type Actor } from "../kernel/actor.js";
import { defineCache, type Context } from "../kernel/context.js";
import { NotFoundError, PermissionDeniedError } from "../kernel/errors.js";
import {
  actionsOf,
  allowedOnEvery,
  builtInProjectRoles,
  can,
  couldAllow,
  independentOf,
  widenedActions,
  findBuiltInProjectRole,
  compileRules,
  isTemporaryActive,
  mergeRuleSources,
  parseConditions,
  timedSource,
  type CompiledRules,
  type PermissionRule,
  type TimedRuleSource,
} from "../permissions/index.js";
import { ACCESS_CACHE_CAPACITY, ACCESS_CACHE_TTL_MS } from "./caches.js";
import { orgRoleOf, type OrgRole } from "./org-access.js";
import { accessRepository } from "./repository.js";
import type { MembershipRoleRow, MembershipRow, PrivilegeRow, ProjectRow } from "./tables.js";
import { nextTemporaryChange } from "./temporary-change.js";

export type { MembershipRow, ProjectRow } from "./tables.js";

/** What an actor may do in one project, compiled once for the request. */
export interface ProjectAccess {
  readonly project: ProjectRow;
  readonly orgRole: OrgRole;
  readonly membership: MembershipRow | undefined;
  readonly rules: PermissionRule[];
  readonly compiled: CompiledRules;
  /**
   * Where the rules come from, each role and privilege with its window, in rule order; grants not
   * yet started are included (their denials matter to the grant boundary), ended ones are not.
   */
  readonly sources: readonly TimedRuleSource[];
  can(action: string, subject: string, object?: Record<string, unknown>): boolean;
  /** Throws 403 PermissionDenied naming the action and subject. */
  require(action: string, subject: string, object?: Record<string, unknown>): void;
  /**
   * Throws 403 unless the actor may `action` the object both as it is and as it will be after a
   * change (a rename, retag, move, environment rename or tag deletion), and the change gives the
   * actor no action on the object that it lacks now: a change never carries an object out of a
   * scope the actor is denied, nor into one where it may not make the change. `what` names the
   * object in the refusal.
   */
  requireChange(action: string, subject: string, before: Record<string, unknown>, after: Record<string, unknown>, what?: string): void;
  /**
   * Whether some values of the `free` fields would let the actor `action` the object: false means
   * "refused whatever exists", the answer that must not depend on existence (DESIGN.md §11).
   */
  couldAllow(action: string, subject: string, object: Record<string, unknown>, free: readonly string[], within?: Record<string, unknown>): boolean;
  /**
   * Whether a change of `fields` alone can change nothing the actor may do on `subject`: it holds
   * every one of `actions` on every object, and no rule looks at those fields. Spares checking
   * each object such a change rewrites.
   */
  unaffectedBy(subject: string, actions: readonly string[], fields: readonly string[]): boolean;
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
 * The actor's access to a project. Cached per actor and project (see access/caches.ts): an entry
 * lives until the TTL, until any operation that may change access completes, or until the next
 * moment a temporary role or privilege of the membership starts or ends, whichever comes first.
 * `maxAgeMs` asks for an answer read from storage at most that long ago (open event streams'
 * re-checks, which must see another node's change sooner than the TTL would let them).
 */
export async function loadProjectAccess(ctx: Context, actor: Actor, ref: ProjectRef, options: { maxAgeMs?: number } = {}): Promise<ProjectAccess> {
  const key = accessKey(actor, ref);
  const now = ctx.clock.now();
  const cache = ctx.caches.get(projectAccessCache);
  const cached = key === undefined ? undefined : cache.get(key, now.getTime(), options.maxAgeMs);
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
  let grants: MembershipGrants = { rules: [], sources: [], changesAt: Number.POSITIVE_INFINITY };
  // Organization admins administer every project of their organization. The organization role
  // governs organization-level actions only: with `no-access` a project membership still counts.
  if (orgRole === "admin") {
    const rules = builtInProjectRoles.admin.permissions;
    grants = { rules, sources: [timedSource(rules, { isTemporary: false })], changesAt: Number.POSITIVE_INFINITY };
  } else if (membership) grants = await membershipGrants(ctx, membership, now);
  return { access: projectAccessFrom(project, orgRole, membership, grants.rules, grants.sources), changesAt: grants.changesAt };
}

export function projectAccessFrom(
  project: ProjectRow,
  orgRole: OrgRole,
  membership: MembershipRow | undefined,
  rules: PermissionRule[],
  sources: readonly TimedRuleSource[] = [timedSource(rules, { isTemporary: false })],
): ProjectAccess {
  const compiled = compileRules(rules);
  return {
    project,
    orgRole,
    membership,
    rules,
    compiled,
    sources,
    can: (action, subject, object) => can(compiled, action, subject, object),
    require(action, subject, object) {
      if (!can(compiled, action, subject, object)) {
        throw new PermissionDeniedError(`You are not allowed to ${action} on ${subject}`);
      }
    },
    requireChange(action, subject, before, after, what = subject) {
      if (!can(compiled, action, subject, before)) throw new PermissionDeniedError(`You are not allowed to ${action} ${what}`);
      if (!can(compiled, action, subject, after)) throw new PermissionDeniedError(`You are not allowed to ${action} ${what} as it would be after the change`);
      const widened = widenedActions(compiled, subject, before, after, actionsOf(subject, action));
      if (widened.length > 0) {
        throw new PermissionDeniedError(`The change would give you ${widened.join(", ")} on ${what}, which you do not have now`, {
          widenedActions: widened,
        });
      }
    },
    couldAllow: (action, subject, object, free, within) => couldAllow(compiled, action, subject, object, free, parseConditions(within)),
    unaffectedBy: (subject, actions, fields) =>
      actions.every((action) => allowedOnEvery(compiled, action, subject)) && independentOf(compiled, subject, actionsOf(subject, actions[0] ?? ""), fields),
    requireMembership() {
      if (rules.length === 0) throw new PermissionDeniedError("You are not a member of this project");
    },
  };
}

/** A membership's rules: its active roles (built-in or custom) then, for identities, its active privileges. */
export async function membershipRules(ctx: Context, membership: MembershipRow): Promise<PermissionRule[]> {
  return (await membershipGrants(ctx, membership, ctx.clock.now())).rules;
}

/**
 * Every permission a membership has or is yet to have: the allowing rules of its roles and
 * privileges that have not ended. What someone must hold to change that membership's access.
 */
export async function membershipPermissions(ctx: Context, membership: MembershipRow): Promise<PermissionRule[]> {
  return (await membershipGrants(ctx, membership, ctx.clock.now())).sources.flatMap((s) => s.rules.filter((r) => r.inverted !== true));
}

/**
 * A membership's rules at `now`, where they come from (ended grants left out), and the first
 * moment after `now` when they change (a temporary grant starts or ends).
 */
interface MembershipGrants {
  rules: PermissionRule[];
  sources: TimedRuleSource[];
  changesAt: number;
}

async function membershipGrants(ctx: Context, membership: MembershipRow, now: Date): Promise<MembershipGrants> {
  const repo = ctx.repo(accessRepository);
  const assigned = await repo.rolesOf(membership.id);
  let changesAt = nextTemporaryChange(assigned, now);
  const roles = assigned.filter((r) => isTemporaryActive(r, now));
  const customIds = assigned.filter((r) => r.customRoleId).map((r) => r.customRoleId as string);
  const custom = await repo.customRoles(customIds);
  const rulesOf = (role: MembershipRoleRow): PermissionRule[] =>
    role.customRoleId
      ? ((custom.find((c) => c.id === role.customRoleId)?.permissions ?? []) as PermissionRule[])
      : (findBuiltInProjectRole(role.role)?.permissions ?? []);
  const roleRules = roles.map(rulesOf);
  let privilegeRules: PermissionRule[][] = [];
  let privileges: PrivilegeRow[] = [];
  if (membership.identityId) {
    privileges = await repo.privilegesOf(membership.id);
    privilegeRules = privileges.filter((p) => isTemporaryActive(p, now)).map((p) => p.permissions as PermissionRule[]);
    changesAt = Math.min(changesAt, nextTemporaryChange(privileges, now));
  }
  // In the order of the rules: roles, then privileges.
  const sources = [
    ...assigned.map((role) => timedSource(rulesOf(role), role)),
    ...privileges.map((p) => timedSource(p.permissions as PermissionRule[], p)),
  ].filter((s) => s.end > now.getTime());
  return { rules: mergeRuleSources({ roles: roleRules, privileges: privilegeRules }), sources, changesAt };
}
