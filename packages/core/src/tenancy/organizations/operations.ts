import { requireOrgRole } from "../../access/org-access.js";
import type { OrgMembershipRow } from "../../access/tables.js";
import { hashPassword } from "../../crypto/hash.js";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError, PermissionDeniedError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { userRepository } from "../users/repository.js";
import { toUser } from "../users/view.js";
import { assertKeepsAnAdmin } from "./admins.js";
import { organizationRepository } from "./repository.js";
import {
  createOrganizationInput,
  createOrganizationOutput,
  createUserInput,
  createUserOutput,
  listMembersInput,
  listMembersOutput,
  memberInput,
  memberOutput,
  updateMemberInput,
} from "./schemas.js";
import { organizationScope } from "./scope.js";
import { toOrgMembership, toOrganization } from "./view.js";

const adminsOnly = organizationScope<{ organizationId: string }>({ organization: (input) => input.organizationId, roles: ["admin"] });
const memberNotFound = () => new NotFoundError("Membership not found");
const isOwn = (actor: Actor, membership: OrgMembershipRow) => actor.type === "user" && actor.userId === membership.userId;

/** A membership as answers show it, with its user. */
async function memberAnswer(ctx: Context, membership: OrgMembershipRow) {
  const user = await ctx.repo(userRepository).byId(membership.userId);
  if (!user) throw memberNotFound();
  return toOrgMembership(membership, user);
}

export const organizationOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create an organization whose admin is the calling user",
    audience: "principal",
    input: createOrganizationInput,
    output: createOrganizationOutput,
    async run(ctx, actor, input) {
      if (actor.type !== "user") throw new PermissionDeniedError("Only users can create organizations");
      return ctx.withTransaction(async (tx) => {
        const org = await tx.repo(organizationRepository).create(input.name);
        await tx.repo(organizationRepository).addMember(org.id, actor.userId, "admin");
        return { organization: toOrganization(org) };
      });
    },
  }),

  createUser: defineOperation({
    name: "createUser",
    summary: "Create a user in an organization (organization admins only)",
    audience: "principal",
    input: createUserInput,
    output: createUserOutput,
    use: organizationScope<{ orgId: string }>({ organization: (input) => input.orgId, roles: ["admin"] }),
    async run(ctx, _actor, input) {
      const address = input.email.toLowerCase();
      const passwordHash = await hashPassword(input.password);
      return ctx.withTransaction(async (tx) => {
        const users = tx.repo(userRepository);
        if (await users.byEmail(address)) throw new BadRequestError("A user with this e-mail already exists");
        const user = await users.create({ email: address, passwordHash, firstName: input.firstName, lastName: input.lastName });
        await tx.repo(organizationRepository).addMember(input.orgId, user.id, input.role);
        return { user: { ...toUser(user), organizationRole: input.role } };
      });
    },
  }),

  listMembers: defineOperation({
    name: "listMembers",
    summary: "List the users of an organization with their organization roles (organization admins only)",
    audience: "principal",
    input: listMembersInput,
    output: listMembersOutput,
    use: adminsOnly,
    async run(ctx, _actor, input) {
      const members = await ctx.repo(organizationRepository).members(input.organizationId);
      return { users: members.map(({ membership, user }) => toOrgMembership(membership, user)) };
    },
  }),

  updateMember: defineOperation({
    name: "updateMember",
    summary: "Change a user's organization role (organization admins only; not one's own)",
    audience: "principal",
    input: updateMemberInput,
    output: memberOutput,
    use: adminsOnly,
    async run(ctx, actor, input) {
      const organizations = ctx.repo(organizationRepository);
      if (!(await organizations.member(input.organizationId, input.membershipId))) throw memberNotFound();
      const changed = await organizations.changeRole(input.membershipId, input.role, async (_tx, current) => {
        if (isOwn(actor, current) && current.role !== input.role) throw new PermissionDeniedError("You cannot change your own organization role");
      });
      if (!changed) throw memberNotFound();
      return { membership: await memberAnswer(ctx, changed) };
    },
  }),

  removeMember: defineOperation({
    name: "removeMember",
    summary:
      "Remove a user from an organization with its project memberships there; its access ends at once. " +
      "Organization admins remove anyone; anyone may leave; the last admin stays.",
    audience: "principal",
    input: memberInput,
    output: memberOutput,
    async run(ctx, actor, input) {
      const organizations = ctx.repo(organizationRepository);
      const membership = await organizations.member(input.organizationId, input.membershipId);
      // Leaving needs no role; removing someone else needs admin (404 outside the organization).
      if (!membership || !isOwn(actor, membership)) await requireOrgRole(ctx, actor, input.organizationId, ["admin"]);
      if (!membership) throw memberNotFound();
      const answer = await memberAnswer(ctx, membership);
      const removed = await organizations.removeMember(membership.id, (tx, current) => assertKeepsAnAdmin(tx, current.orgId, current.role));
      if (!removed) throw memberNotFound();
      return { membership: answer };
    },
  }),
};
