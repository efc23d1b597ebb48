import { z } from "zod";
import { isoDateTime, temporaryGrantFields, uuid } from "../../kernel/schemas.js";

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
