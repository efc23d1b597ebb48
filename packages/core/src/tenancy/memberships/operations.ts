import { isOwnMembership } from "../../access/own-access.js";
import { accessRepository } from "../../access/repository.js";
import { projectScope, type ProjectScope } from "../../access/scope.js";
import type { MembershipRow } from "../../access/tables.js";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { identityRepository } from "../identities/repository.js";
import { userRepository } from "../users/repository.js";
import { membershipRepository, type RoleGrant } from "./repository.js";
import { assertMayChangeMembership, requireMembershipManagement } from "./change-guard.js";
import { assertOnePermanent, permanent, roleGrants } from "./role-assignments.js";
import {
  addIdentityInput,
  addIdentityOutput,
  addUsersInput,
  addUsersOutput,
  detailsInput,
  detailsOutput,
  identityMembershipInput,
  identityMembershipOutput,
  listIdentityMembershipsInput,
  listIdentityMembershipsOutput,
  listUserMembershipsInput,
  listUserMembershipsOutput,
  removedUserMembershipOutput,
  removeUsersInput,
  removeUsersOutput,
  updateIdentityMembershipInput,
  userMembershipInput,
  userMembershipOutput,
  updateRolesInput,
  updateRolesOutput,
} from "./schemas.js";
import {
  toIdentityMembership,
  toIdentityMembershipDetails,
  toMembershipDetails,
  toMembershipRole,
  toUserMembership,
  toUserMembershipDetails,
} from "./view.js";

/** Memberships are managed with a permission on members (or identities) of the project the input names. */
const inProject = (action: string, subject: string) =>
  projectScope<{ projectId: string }>({ project: (input) => ({ projectId: input.projectId }), permission: { action, subject } });

const inProjectScope = projectScope<{ projectId: string }>({ project: (input) => ({ projectId: input.projectId }) });
const notFound = () => new NotFoundError("Membership not found");

/** Usernames and e-mails name the same users (a user's username is its e-mail), lower-cased, once each. */
const namedUsers = (input: { usernames: string[]; emails: string[] }): string[] => [
  ...new Set([...input.usernames, ...input.emails].map((name) => name.toLowerCase())),
];

/** Users' memberships as lists and single reads show them, with their users and custom roles' names. */
async function userMembershipsAnswer(ctx: Context, memberships: readonly MembershipRow[]) {
  const repo = ctx.repo(membershipRepository);
  const users = new Map((await ctx.repo(userRepository).byIds(memberships.map((m) => m.userId as string))).map((u) => [u.id, u]));
  const roles = await repo.rolesOfMany(memberships.map((m) => m.id));
  const customIds = [...roles.values()].flat().flatMap((r) => (r.customRoleId ? [r.customRoleId] : []));
  const custom = await ctx.repo(accessRepository).customRoles([...new Set(customIds)]);
  return memberships.flatMap((m) => {
    const user = users.get(m.userId as string);
    return user ? [toUserMembershipDetails(m, user, roles.get(m.id) ?? [], custom)] : [];
  });
}

/** Identities' memberships with their identities and login methods. */
async function identityMembershipsAnswer(ctx: Context, memberships: readonly MembershipRow[]) {
  const identities = ctx.repo(identityRepository);
  const ids = memberships.map((m) => m.identityId as string);
  const rows = new Map((await Promise.all(ids.map((id) => identities.byId(id)))).flatMap((i) => (i ? [[i.id, i] as const] : [])));
  const methods = await identities.authMethodsOf(ids);
  const roles = await ctx.repo(membershipRepository).rolesOfMany(memberships.map((m) => m.id));
  return memberships.flatMap((m) => {
    const identity = rows.get(m.identityId as string);
    return identity ? [toIdentityMembershipDetails(m, identity, roles.get(m.id) ?? [], methods.get(identity.id) ?? [])] : [];
  });
}

/**
 * Removes memberships under the same rules as every membership change (change-guard.ts): one's
 * own may always be left; someone else's needs `delete` on member or identity and every
 * permission it holds. All of them or none.
 */
async function removeMemberships(ctx: Context, actor: Actor, { access }: ProjectScope, memberships: readonly MembershipRow[]) {
  return ctx.repo(membershipRepository).remove(
    memberships.map((m) => m.id),
    (locked, tx) => assertMayChangeMembership(tx, actor, access, locked, "delete"),
  );
}

/** 403 before any lookup unless the actor may remove memberships or is leaving (its own is the one named). */
function requireRemoval(actor: Actor, scope: ProjectScope, membership: MembershipRow | undefined): void {
  if (!membership || !isOwnMembership(actor, membership)) requireMembershipManagement(scope.access, "delete");
}

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
        const usernames = namedUsers(input);
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
    summary:
      "Replace the roles of a project membership. Needs `edit` on member (a user's membership) or identity (a machine " +
      "identity's), every permission the membership has, and every permission given; nobody changes their own roles.",
    audience: "principal",
    input: updateRolesInput,
    output: updateRolesOutput,
    use: projectScope<{ projectId: string }>({ project: (input) => ({ projectId: input.projectId }) }),
    async run(ctx, actor, input, { access, project }) {
      requireMembershipManagement(access, "edit");
      assertOnePermanent(input.roles);
      const notFound = () => new NotFoundError("Membership not found");
      const membership = await ctx.repo(membershipRepository).inProject(project.id, input.membershipId);
      if (!membership) throw notFound();
      const roles = await ctx.repo(membershipRepository).replaceRoles(membership.id, async (locked, tx) => {
        await assertMayChangeMembership(tx, actor, access, locked, "edit");
        return roleGrants(tx, access, input.roles);
      });
      if (!roles) throw notFound();
      return { roles: roles.map(toMembershipRole) };
    },
  }),

  listUsers: defineOperation({
    name: "listUsers",
    summary: "List a project's user memberships with their users and roles",
    audience: "principal",
    input: listUserMembershipsInput,
    output: listUserMembershipsOutput,
    use: inProject("read", "member"),
    async run(ctx, _actor, _input, { project }) {
      return { memberships: await userMembershipsAnswer(ctx, await ctx.repo(membershipRepository).ofProject(project.id, "user")) };
    },
  }),

  getUser: defineOperation({
    name: "getUser",
    summary: "Get a user's membership of a project by its id",
    audience: "principal",
    input: userMembershipInput,
    output: userMembershipOutput,
    use: inProject("read", "member"),
    async run(ctx, _actor, input, { project }) {
      const membership = await ctx.repo(membershipRepository).inProject(project.id, input.membershipId);
      const [answer] = membership?.userId ? await userMembershipsAnswer(ctx, [membership]) : [];
      if (!answer) throw notFound();
      return { membership: answer };
    },
  }),

  removeUser: defineOperation({
    name: "removeUser",
    summary: "Remove a user's membership of a project by its id; its access ends at once (one may always leave)",
    audience: "principal",
    input: userMembershipInput,
    output: removedUserMembershipOutput,
    use: inProjectScope,
    async run(ctx, actor, input, scope) {
      const membership = await ctx.repo(membershipRepository).inProject(scope.project.id, input.membershipId);
      requireRemoval(actor, scope, membership);
      if (!membership?.userId) throw notFound();
      const [removed] = await removeMemberships(ctx, actor, scope, [membership]);
      if (!removed) throw notFound();
      return { membership: toUserMembership(removed.membership, membership.userId, removed.roles) };
    },
  }),

  removeUsers: defineOperation({
    name: "removeUsers",
    summary: "Remove users from a project by username or e-mail, all of them or none",
    audience: "principal",
    input: removeUsersInput,
    output: removeUsersOutput,
    use: inProjectScope,
    async run(ctx, actor, input, scope) {
      const users = await ctx.repo(userRepository).inOrganization(scope.project.orgId, namedUsers(input));
      const access = ctx.repo(accessRepository);
      const memberships = (await Promise.all(users.map((u) => access.projectMembership(scope.project.id, { kind: "user", id: u.id })))).filter(
        (m): m is MembershipRow => m !== undefined,
      );
      const leavingOnly = memberships.length > 0 && memberships.every((m) => isOwnMembership(actor, m));
      if (!leavingOnly) requireMembershipManagement(scope.access, "delete");
      if (memberships.length !== namedUsers(input).length) throw new NotFoundError("Not every user named is a member of this project");
      const removed = await removeMemberships(ctx, actor, scope, memberships);
      return { memberships: removed.map(({ membership, roles }) => toUserMembership(membership, membership.userId as string, roles)) };
    },
  }),

  listIdentities: defineOperation({
    name: "listIdentities",
    summary: "List a project's machine-identity memberships with their identities and roles",
    audience: "principal",
    input: listIdentityMembershipsInput,
    output: listIdentityMembershipsOutput,
    use: inProject("read", "identity"),
    async run(ctx, _actor, _input, { project }) {
      const identityMemberships = await identityMembershipsAnswer(ctx, await ctx.repo(membershipRepository).ofProject(project.id, "identity"));
      return { identityMemberships, totalCount: identityMemberships.length };
    },
  }),

  getIdentity: defineOperation({
    name: "getIdentity",
    summary: "Get a machine identity's membership of a project",
    audience: "principal",
    input: identityMembershipInput,
    output: identityMembershipOutput,
    use: inProject("read", "identity"),
    async run(ctx, _actor, input, { project }) {
      const membership = await ctx.repo(accessRepository).projectMembership(project.id, { kind: "identity", id: input.identityId });
      const [answer] = membership ? await identityMembershipsAnswer(ctx, [membership]) : [];
      if (!answer) throw notFound();
      return { identityMembership: answer };
    },
  }),

  updateIdentity: defineOperation({
    name: "updateIdentity",
    summary: "Replace the roles of a machine identity's membership (the rules of every membership change apply)",
    audience: "principal",
    input: updateIdentityMembershipInput,
    output: updateRolesOutput,
    use: inProjectScope,
    async run(ctx, actor, input, { access, project }) {
      requireMembershipManagement(access, "edit");
      assertOnePermanent(input.roles);
      const membership = await ctx.repo(accessRepository).projectMembership(project.id, { kind: "identity", id: input.identityId });
      if (!membership) throw notFound();
      const roles = await ctx.repo(membershipRepository).replaceRoles(membership.id, async (locked, tx) => {
        await assertMayChangeMembership(tx, actor, access, locked, "edit");
        return roleGrants(tx, access, input.roles);
      });
      if (!roles) throw notFound();
      return { roles: roles.map(toMembershipRole) };
    },
  }),

  removeIdentity: defineOperation({
    name: "removeIdentity",
    summary: "Remove a machine identity from a project with its roles and privileges; its access ends at once",
    audience: "principal",
    input: identityMembershipInput,
    output: identityMembershipOutput,
    use: inProjectScope,
    async run(ctx, actor, input, scope) {
      const membership = await ctx.repo(accessRepository).projectMembership(scope.project.id, { kind: "identity", id: input.identityId });
      requireRemoval(actor, scope, membership);
      if (!membership) throw notFound();
      const [answer] = await identityMembershipsAnswer(ctx, [membership]);
      const [removed] = await removeMemberships(ctx, actor, scope, [membership]);
      if (!removed || !answer) throw notFound();
      return { identityMembership: answer };
    },
  }),
};
