import { z } from "zod";
import { ORG_ROLES } from "../../access/org-access.js";
import { email, organizationSchema, userSchema } from "../../kernel/schemas.js";
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
