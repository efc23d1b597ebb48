import { z } from "zod";
import { email, isoDateTime, temporaryGrantFields, uuid } from "../../kernel/schemas.js";

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

/** Users named by username, by e-mail or both (the e-mail is every user's username); at least one. */
const userNames = {
  projectId: z.string().min(1),
  usernames: z.array(z.string().min(1).max(255)).max(100).default([]),
  emails: z.array(email).max(100).default([]),
};
const someUser = (v: { usernames: string[]; emails: string[] }) => v.usernames.length + v.emails.length > 0;
const someUserMessage = { message: "Name at least one user in usernames or emails", path: ["usernames"] };

export const addUsersInput = z
  .object({ ...userNames, roleSlugs: z.array(z.string().min(1).max(64)).min(1).default(["member"]) })
  .refine(someUser, someUserMessage);
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

export const removeUsersInput = z.strictObject(userNames).refine(someUser, someUserMessage);
export const removeUsersOutput = addUsersOutput;

/** A user's membership in lists and single reads: the details shape with its timestamps. */
export const userMembershipDetailsSchema = membershipDetailsSchema.extend({ createdAt: isoDateTime, updatedAt: isoDateTime });

export const listUserMembershipsInput = z.strictObject({ projectId: z.string().min(1).max(255) });
export const listUserMembershipsOutput = z.object({ memberships: z.array(userMembershipDetailsSchema) });
export const userMembershipInput = z.strictObject({ projectId: z.string().min(1).max(255), membershipId: z.string().min(1).max(255) });
export const userMembershipOutput = z.object({ membership: userMembershipDetailsSchema });
export const removedUserMembershipOutput = z.object({ membership: userMembershipSchema });

/** A machine identity's membership with the identity it is for. */
export const identityMembershipDetailsSchema = identityMembershipSchema.extend({
  identity: z.object({ id: uuid, name: z.string(), authMethods: z.array(z.string()) }),
});

export const listIdentityMembershipsInput = z.strictObject({ projectId: z.string().min(1).max(255) });
export const listIdentityMembershipsOutput = z.object({ identityMemberships: z.array(identityMembershipDetailsSchema), totalCount: z.number().int() });
export const identityMembershipInput = z.strictObject({ projectId: z.string().min(1).max(255), identityId: z.string().min(1).max(255) });
export const identityMembershipOutput = z.object({ identityMembership: identityMembershipDetailsSchema });
export const updateIdentityMembershipInput = z.strictObject({
  projectId: z.string().min(1).max(255),
  identityId: z.string().min(1).max(255),
  roles: z.array(roleAssignmentSchema).min(1).max(20),
});
