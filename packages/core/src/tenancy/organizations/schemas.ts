import { z } from "zod";
import { ORG_ROLES } from "../../access/org-access.js";
import { email, isoDateTime, organizationSchema, userSchema, uuid } from "../../kernel/schemas.js";
import { passwordSchema } from "../users/schemas.js";

export const organizationName = z.string().trim().min(1).max(64);

export const createOrganizationInput = z.object({ name: organizationName });
export const createOrganizationOutput = z.object({ organization: organizationSchema });

export const createUserInput = z.object({
  orgId: z.string().min(1),
  email,
  password: passwordSchema,
  firstName: z.string().max(64).optional(),
  lastName: z.string().max(64).optional(),
  role: z.enum(ORG_ROLES).default("member"),
});
export const createUserOutput = z.object({ user: userSchema.extend({ organizationRole: z.enum(ORG_ROLES) }) });

/** A user's place in an organization, as Infisical's organization memberships show it. */
export const orgMembershipSchema = z.object({
  id: uuid,
  orgId: uuid,
  userId: uuid,
  role: z.enum(ORG_ROLES),
  /** Users are created by an admin, never invited: every membership is accepted and active. */
  status: z.literal("accepted"),
  isActive: z.boolean(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  user: z.object({ id: uuid, email: z.string(), username: z.string(), firstName: z.string(), lastName: z.string() }),
});

export const listMembersInput = z.strictObject({ organizationId: z.string().min(1).max(255) });
export const listMembersOutput = z.object({ users: z.array(orgMembershipSchema) });

export const memberInput = z.strictObject({ organizationId: z.string().min(1).max(255), membershipId: z.string().min(1).max(255) });
export const updateMemberInput = z.strictObject({
  organizationId: z.string().min(1).max(255),
  membershipId: z.string().min(1).max(255),
  role: z.enum(ORG_ROLES),
});
export const memberOutput = z.object({ membership: orgMembershipSchema });
