import { defineRepository } from "../kernel/context.js";
import { tablesOf } from "../storage/table.js";
import { accessTables, type EnvironmentRow, type IdentityRow, type MembershipRoleRow, type MembershipRow, type ProjectRow } from "./tables.js";

/**
 * Every read access decisions make: projects, environments, organization and project
 * memberships, roles and privileges. Tenancy and the secret manager own the writes.
 */
export const accessRepository = defineRepository("access", (ctx) => {
  const t = tablesOf(ctx.storage, accessTables);
  return {
    projectById: (id: string): Promise<ProjectRow | undefined> => t.projects.get(id),
    projectBySlug: (orgIds: readonly string[], slug: string): Promise<ProjectRow | undefined> =>
      orgIds.length ? t.projects.findOne({ orgId: orgIds.length === 1 ? orgIds[0] : { in: orgIds }, slug }) : Promise.resolve(undefined),
    identity: (id: string): Promise<IdentityRow | undefined> => t.identities.get(id),
    orgMembership: (orgId: string, userId: string) => t.orgMemberships.findOne({ orgId, userId }),
    orgMembershipsOfUser: (userId: string) => t.orgMemberships.find({ userId }),
    projectMembership: (projectId: string, principal: { kind: "user" | "identity"; id: string }): Promise<MembershipRow | undefined> =>
      t.projectMemberships.findOne(principal.kind === "user" ? { projectId, userId: principal.id } : { projectId, identityId: principal.id }),
    /** In assignment order: the last matching rule wins, so the order of roles is part of their meaning. */
    rolesOf: (membershipId: string): Promise<MembershipRoleRow[]> =>
      t.membershipRoles.find({ membershipId }, { orderBy: [["createdAt", "asc"]] }),
    customRoles: (ids: readonly string[]) => (ids.length ? t.projectRoles.find({ id: { in: [...ids] } }) : Promise.resolve([])),
    /** In the order they were granted. */
    privilegesOf: (membershipId: string) => t.identityPrivileges.find({ projectMembershipId: membershipId }, { orderBy: [["createdAt", "asc"]] }),
    liveEnvironment: (projectId: string, slug: string): Promise<EnvironmentRow | undefined> =>
      t.environments.findOne({ projectId, slug, deletedAt: null }),
  };
});
