import { actorPrincipal, type Actor } from "../actor.js";
import type { Context } from "../context.js";
import { NotFoundError, PermissionDeniedError } from "../errors.js";
import {
  builtInProjectRoles,
  can,
  findBuiltInProjectRole,
  compileRules,
  isTemporaryActive,
  type CompiledRules,
  type PermissionRule,
} from "../permissions/index.js";
import type { Row } from "../storage/schema.js";
import type { Storage } from "../storage/table.js";
import { orgRoleOf, type OrgRole } from "./org-access.js";

export type ProjectRow = Row<"projects">;
export type MembershipRow = Row<"projectMemberships">;

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
  /** Throws 403 unless the actor is a member of the project or an organization admin. */
  requireMembership(): void;
}

export type ProjectRef = { projectId: string } | { projectSlug: string };

/** Finds a project the actor may know about: same organization, else 404. */
export async function findVisibleProject(ctx: Context, actor: Actor, ref: ProjectRef): Promise<{ project: ProjectRow; orgRole: OrgRole }> {
  const tables = ctx.storage.tables;
  let project: ProjectRow | undefined;
  if ("projectId" in ref) {
    project = await tables.projects.get(ref.projectId);
  } else if (actor.type === "identity") {
    project = await tables.projects.findOne({ orgId: actor.orgId, slug: ref.projectSlug });
  } else if (actor.type === "user") {
    const orgIds = (await tables.orgMemberships.find({ userId: actor.userId })).map((m) => m.orgId);
    project = orgIds.length ? await tables.projects.findOne({ orgId: { in: orgIds }, slug: ref.projectSlug }) : undefined;
  }
  const orgRole = project ? await orgRoleOf(ctx, actor, project.orgId) : undefined;
  if (!project || !orgRole) throw new NotFoundError("Project not found");
  return { project, orgRole };
}

export async function loadProjectAccess(ctx: Context, actor: Actor, ref: ProjectRef): Promise<ProjectAccess> {
  const { project, orgRole } = await findVisibleProject(ctx, actor, ref);
  const principal = actorPrincipal(actor);
  const membership = principal
    ? await ctx.storage.tables.projectMemberships.findOne(
        principal.kind === "user" ? { projectId: project.id, userId: principal.id } : { projectId: project.id, identityId: principal.id },
      )
    : undefined;
  let rules: PermissionRule[] = [];
  // Organization admins administer every project of their organization.
  if (orgRole === "admin") rules = builtInProjectRoles.admin.permissions;
  else if (orgRole !== "no-access" && membership) rules = await membershipRules(ctx, ctx.storage, membership);
  return projectAccessFrom(project, orgRole, membership, rules);
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
    requireMembership() {
      if (rules.length === 0) throw new PermissionDeniedError("You are not a member of this project");
    },
  };
}

/** A membership's rules: its active roles (built-in or custom) then, for identities, its active privileges. */
export async function membershipRules(ctx: Context, storage: Storage, membership: MembershipRow): Promise<PermissionRule[]> {
  const now = ctx.clock.now();
  const roles = (await storage.tables.membershipRoles.find({ membershipId: membership.id })).filter((r) =>
    isTemporaryActive(r, now),
  );
  const rules: PermissionRule[] = [];
  const customIds = roles.filter((r) => r.customRoleId).map((r) => r.customRoleId as string);
  const custom = customIds.length ? await storage.tables.projectRoles.find({ id: { in: customIds } }) : [];
  for (const role of roles) {
    if (role.customRoleId) {
      const def = custom.find((c) => c.id === role.customRoleId);
      if (def) rules.push(...(def.permissions as PermissionRule[]));
    } else {
      const builtIn = findBuiltInProjectRole(role.role);
      if (builtIn) rules.push(...builtIn.permissions);
    }
  }
  if (membership.identityId) {
    const privileges = await storage.tables.identityPrivileges.find(
      { projectMembershipId: membership.id },
      { orderBy: [["createdAt", "asc"]] },
    );
    for (const privilege of privileges) {
      if (isTemporaryActive(privilege, now)) rules.push(...(privilege.permissions as PermissionRule[]));
    }
  }
  return rules;
}

/** The authorize seam every project-scoped operation calls: load the actor's access, then require the action. */
export async function authorize(
  ctx: Context,
  actor: Actor,
  action: string,
  subject: string,
  object: ProjectRef & Record<string, unknown>,
): Promise<ProjectAccess> {
  const access = await loadProjectAccess(ctx, actor, object);
  access.require(action, subject, object);
  return access;
}
