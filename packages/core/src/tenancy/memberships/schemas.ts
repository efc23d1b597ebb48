import { z } from "zod";
import { isoDateTime, temporaryGrantFields, uuid } from "../../kernel/schemas.js";

/** One role given to a membership; temporary roles use a relative range from their start time. */
export const roleAssignmentSchema = z.object({
  role: z.string().min(1).max(64),
  isTemporary: z.boolean().default(false),
  temporaryMode: z.enum(["relative"]).optional(),
  temporaryRange: z.string().min(1).max(32).optional(),
  temporaryAccessStartTime: z.iso.datetime({ offset: true }).optional(),
});
export type RoleAssignment = z.output<typeof roleAssignmentSchema>;

/** SPEC.md's project membership role. `role` is a built-in slug, or `custom` with `customRoleId`. */
export const membershipRoleSchema = z.object({
  id: uuid,
  role: z.string(),
  projectMembershipId: uuid,
  customRoleId: uuid.nullable(),
  ...temporaryGrantFields,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

/** The role shape inside membership details. */
export const membershipDetailsRoleSchema = z.object({
  id: uuid,
  role: z.string(),
  customRoleId: z.string().nullable(),
  customRoleName: z.string().nullable(),
  customRoleSlug: z.string().nullable(),
  ...temporaryGrantFields,
});

export const membershipDetailsSchema = z.object({
  id: uuid,
  userId: uuid,
  projectId: z.string(),
  user: z.object({
    username: z.string(),
    id: uuid,
    email: z.string(),
    isEmailVerified: z.boolean(),
    firstName: z.string(),
    lastName: z.string(),
    authMethods: z.array(z.string()),
    publicKey: z.string(),
  }),
  roles: z.array(membershipDetailsRoleSchema),
});

export const userMembershipSchema = z.object({
  id: uuid,
  userId: uuid,
  projectId: z.string(),
  roles: z.array(membershipRoleSchema),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const identityMembershipSchema = z.object({
  id: uuid,
  identityId: uuid,
  projectId: z.string(),
  roles: z.array(membershipRoleSchema),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const addUsersInput = z.object({
  projectId: z.string().min(1),
  usernames: z.array(z.string().min(1).max(255)).min(1).max(100),
  roleSlugs: z.array(z.string().min(1).max(64)).min(1).default(["member"]),
});
export const addUsersOutput = z.object({ memberships: z.array(userMembershipSchema) });

export const addIdentityInput = z
  .object({
    projectId: z.string().min(1),
    identityId: z.string().min(1),
    role: z.string().min(1).max(64).optional(),
    roles: z.array(roleAssignmentSchema).min(1).optional(),
  })
  .refine((v) => !(v.role && v.roles), { message: "Pass either role or roles, not both" });
export const addIdentityOutput = z.object({ identityMembership: identityMembershipSchema });

export const detailsInput = z.object({ workspaceId: z.string().min(1), username: z.string().min(1).max(255) });
export const detailsOutput = z.object({ membership: membershipDetailsSchema });

export const updateRolesInput = z.object({
  projectId: z.string().min(1),
  membershipId: z.string().min(1),
  roles: z.array(roleAssignmentSchema).min(1).max(20),
});
export const updateRolesOutput = z.object({ roles: z.array(membershipRoleSchema) });
