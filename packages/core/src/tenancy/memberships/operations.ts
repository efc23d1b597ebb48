import { accessRepository } from "../../access/repository.js";
import { projectScope } from "../../access/scope.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { userRepository } from "../users/repository.js";
import { membershipRepository, type RoleGrant } from "./repository.js";
import { assertOnePermanent, permanent, roleGrants } from "./role-assignments.js";
import {
  addIdentityInput,
  addIdentityOutput,
  addUsersInput,
  addUsersOutput,
  detailsInput,
  detailsOutput,
  updateRolesInput,
  updateRolesOutput,
} from "./schemas.js";
import { toIdentityMembership, toMembershipDetails, toMembershipRole, toUserMembership } from "./view.js";

/** Memberships are managed with a permission on members (or identities) of the project the input names. */
const inProject = (action: string, subject: string) =>
  projectScope<{ projectId: string }>({ project: (input) => ({ projectId: input.projectId }), permission: { action, subject } });

export const membershipOperations = {
  addUsers: defineOperation({
    name: "addUsers",
    summary: "Add organization users to a project by username (e-mail)",
    audience: "principal",
    input: addUsersInput,
    output: addUsersOutput,
    use: inProject("create", "member"),
    async run(ctx, _actor, input, { access, project }) {
      return ctx.withTransaction(async (tx) => {
        const usernames = [...new Set(input.usernames.map((u) => u.toLowerCase()))];
        const users = await tx.repo(userRepository).inOrganization(project.orgId, usernames);
        const unknown = usernames.filter((name) => !users.some((u) => u.username === name));
        if (unknown.length) throw new NotFoundError(`No user of this organization named ${unknown.join(", ")}`);
        let grants: RoleGrant[] | undefined;
        const memberships = [];
        for (const user of users) {
          if (await tx.repo(accessRepository).projectMembership(project.id, { kind: "user", id: user.id })) {
            throw new BadRequestError(`${user.username} is already a member of this project`);
          }
          grants ??= await roleGrants(tx, access, input.roleSlugs.map(permanent));
          const { membership, roles } = await tx.repo(membershipRepository).add(project.id, { kind: "user", id: user.id }, grants);
          memberships.push(toUserMembership(membership, user.id, roles));
        }
        return { memberships };
      });
    },
  }),

  addIdentity: defineOperation({
    name: "addIdentity",
    summary: "Add a machine identity of the organization to a project",
    audience: "principal",
    input: addIdentityInput,
    output: addIdentityOutput,
    use: inProject("create", "identity"),
    async run(ctx, _actor, input, { access, project }) {
      const identity = await ctx.repo(accessRepository).identity(input.identityId);
      if (!identity || identity.orgId !== project.orgId) throw new NotFoundError("Identity not found");
      const assignments = input.roles ?? [permanent(input.role ?? "member")];
      assertOnePermanent(assignments);
      return ctx.withTransaction(async (tx) => {
        const principal = { kind: "identity" as const, id: identity.id };
        if (await tx.repo(accessRepository).projectMembership(project.id, principal)) {
          throw new BadRequestError("This identity is already a member of this project");
        }
        const grants = await roleGrants(tx, access, assignments);
        const { membership, roles } = await tx.repo(membershipRepository).add(project.id, principal, grants);
        return { identityMembership: toIdentityMembership(membership, identity.id, roles) };
      });
    },
  }),

  details: defineOperation({
    name: "details",
    summary: "Get the membership of a user in a project",
    audience: "principal",
    input: detailsInput,
    output: detailsOutput,
    use: projectScope<{ workspaceId: string }>({ project: (input) => ({ projectId: input.workspaceId }), permission: { action: "read", subject: "member" } }),
    async run(ctx, _actor, input, { project }) {
      const access = ctx.repo(accessRepository);
      const user = await ctx.repo(userRepository).byUsername(input.username.toLowerCase());
      const membership = user ? await access.projectMembership(project.id, { kind: "user", id: user.id }) : undefined;
      if (!user || !membership) throw new NotFoundError("Membership not found");
      const roles = await access.rolesOf(membership.id);
      const custom = await access.customRoles(roles.map((r) => r.customRoleId).filter((id): id is string => !!id));
      return { membership: toMembershipDetails(membership, user, roles, custom) };
    },
  }),

  updateRoles: defineOperation({
    name: "updateRoles",
    summary: "Replace the roles of a project membership",
    audience: "principal",
    input: updateRolesInput,
    output: updateRolesOutput,
    use: inProject("edit", "member"),
    async run(ctx, _actor, input, { access, project }) {
      assertOnePermanent(input.roles);
      return ctx.withTransaction(async (tx) => {
        const notFound = () => new NotFoundError("Membership not found");
        const membership = await tx.repo(membershipRepository).inProject(project.id, input.membershipId);
        if (!membership) throw notFound();
        const roles = await tx.repo(membershipRepository).replaceRoles(membership.id, await roleGrants(tx, access, input.roles));
        if (!roles) throw notFound();
        return { roles: roles.map(toMembershipRole) };
      });
    },
  }),
};
