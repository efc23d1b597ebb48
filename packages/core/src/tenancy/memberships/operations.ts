import { z } from "zod";
import { loadProjectAccess } from "../../access/project-access.js";
import { BadRequestError, NotFoundError, ValidationError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { temporaryGrantOf } from "../../kernel/schemas.js";
import { replaceMembershipRoles, roleAssignmentSchema, type RoleAssignment } from "./role-assignments.js";
import { identityMembershipSchema, membershipDetailsSchema, membershipRoleSchema, userMembershipSchema } from "./schemas.js";
import { toMembershipRole } from "./view.js";

const permanent = (role: string): RoleAssignment => ({ role, isTemporary: false });

export const membershipOperations = {
  addUsers: defineOperation({
    name: "addUsers",
    summary: "Add organization users to a project by username (e-mail)",
    audience: "principal",
    input: z.object({
      projectId: z.string().min(1),
      usernames: z.array(z.string().min(1).max(255)).min(1).max(100),
      roleSlugs: z.array(z.string().min(1).max(64)).min(1).default(["member"]),
    }),
    output: z.object({ memberships: z.array(userMembershipSchema) }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      access.require("create", "member");
      const project = access.project;
      return ctx.storage.transaction(async (tx) => {
        const usernames = [...new Set(input.usernames.map((u) => u.toLowerCase()))];
        const users = await tx.tables.users.find({ username: { in: usernames } });
        const orgMembers = users.length
          ? await tx.tables.orgMemberships.find({ orgId: project.orgId, userId: { in: users.map((u) => u.id) } })
          : [];
        const inOrg = users.filter((u) => orgMembers.some((m) => m.userId === u.id));
        const unknown = usernames.filter((name) => !inOrg.some((u) => u.username === name));
        if (unknown.length) throw new NotFoundError(`No user of this organization named ${unknown.join(", ")}`);
        const memberships = [];
        for (const user of inOrg) {
          if (await tx.tables.projectMemberships.findOne({ projectId: project.id, userId: user.id })) {
            throw new BadRequestError(`${user.username} is already a member of this project`);
          }
          const now = ctx.clock.now().toISOString();
          const membership = { id: newId(), projectId: project.id, userId: user.id, identityId: null, createdAt: now, updatedAt: now };
          await tx.tables.projectMemberships.insert(membership);
          const roles = await replaceMembershipRoles(ctx, tx, access, membership.id, input.roleSlugs.map(permanent));
          memberships.push({ id: membership.id, userId: user.id, projectId: project.id, roles: roles.map(toMembershipRole), createdAt: now, updatedAt: now });
        }
        return { memberships };
      });
    },
  }),

  addIdentity: defineOperation({
    name: "addIdentity",
    summary: "Add a machine identity of the organization to a project",
    audience: "principal",
    input: z
      .object({
        projectId: z.string().min(1),
        identityId: z.string().min(1),
        role: z.string().min(1).max(64).optional(),
        roles: z.array(roleAssignmentSchema).min(1).optional(),
      })
      .refine((v) => !(v.role && v.roles), { message: "Pass either role or roles, not both" }),
    output: z.object({ identityMembership: identityMembershipSchema }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      access.require("create", "identity");
      const project = access.project;
      const identity = await ctx.storage.tables.identities.get(input.identityId);
      if (!identity || identity.orgId !== project.orgId) throw new NotFoundError("Identity not found");
      const assignments = input.roles ?? [permanent(input.role ?? "member")];
      assertOnePermanent(assignments);
      return ctx.storage.transaction(async (tx) => {
        if (await tx.tables.projectMemberships.findOne({ projectId: project.id, identityId: identity.id })) {
          throw new BadRequestError("This identity is already a member of this project");
        }
        const now = ctx.clock.now().toISOString();
        const membership = { id: newId(), projectId: project.id, userId: null, identityId: identity.id, createdAt: now, updatedAt: now };
        await tx.tables.projectMemberships.insert(membership);
        const roles = await replaceMembershipRoles(ctx, tx, access, membership.id, assignments);
        return {
          identityMembership: {
            id: membership.id,
            identityId: identity.id,
            projectId: project.id,
            roles: roles.map(toMembershipRole),
            createdAt: now,
            updatedAt: now,
          },
        };
      });
    },
  }),

  details: defineOperation({
    name: "details",
    summary: "Get the membership of a user in a project",
    audience: "principal",
    input: z.object({ workspaceId: z.string().min(1), username: z.string().min(1).max(255) }),
    output: z.object({ membership: membershipDetailsSchema }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.workspaceId });
      access.require("read", "member");
      const tables = ctx.storage.tables;
      const user = await tables.users.findOne({ username: input.username.toLowerCase() });
      const membership = user ? await tables.projectMemberships.findOne({ projectId: access.project.id, userId: user.id }) : undefined;
      if (!user || !membership) throw new NotFoundError("Membership not found");
      const roles = await tables.membershipRoles.find({ membershipId: membership.id }, { orderBy: [["createdAt", "asc"]] });
      const customIds = roles.map((r) => r.customRoleId).filter((id): id is string => !!id);
      const custom = customIds.length ? await tables.projectRoles.find({ id: { in: customIds } }) : [];
      return {
        membership: {
          id: membership.id,
          userId: user.id,
          projectId: access.project.id,
          user: {
            username: user.username,
            id: user.id,
            email: user.email,
            isEmailVerified: user.isEmailVerified,
            firstName: user.firstName,
            lastName: user.lastName,
            authMethods: ["email"],
            publicKey: "",
          },
          roles: roles.map((r) => {
            const c = custom.find((x) => x.id === r.customRoleId);
            return {
              id: r.id,
              role: r.role,
              customRoleId: r.customRoleId,
              customRoleName: c?.name ?? null,
              customRoleSlug: c?.slug ?? null,
              ...temporaryGrantOf(r),
            };
          }),
        },
      };
    },
  }),

  updateRoles: defineOperation({
    name: "updateRoles",
    summary: "Replace the roles of a project membership",
    audience: "principal",
    input: z.object({
      projectId: z.string().min(1),
      membershipId: z.string().min(1),
      roles: z.array(roleAssignmentSchema).min(1).max(20),
    }),
    output: z.object({ roles: z.array(membershipRoleSchema) }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      access.require("edit", "member");
      assertOnePermanent(input.roles);
      return ctx.storage.transaction(async (tx) => {
        const membership = await tx.tables.projectMemberships.findOne({ id: input.membershipId, projectId: access.project.id });
        if (!membership) throw new NotFoundError("Membership not found");
        const roles = await replaceMembershipRoles(ctx, tx, access, membership.id, input.roles);
        return { roles: roles.map(toMembershipRole) };
      });
    },
  }),
};

/** A membership with only temporary roles would silently lose all access when they lapse. */
function assertOnePermanent(roles: RoleAssignment[]): void {
  if (!roles.some((r) => !r.isTemporary)) {
    throw new ValidationError([{ path: "roles", message: "At least one role must be permanent (isTemporary: false)" }]);
  }
}
