import { z } from "zod";
import { email, organizationSchema, userSchema, uuid } from "../../kernel/schemas.js";
import { organizationName } from "../organizations/schemas.js";
import { passwordSchema } from "../users/schemas.js";

export const bootstrapInput = z.object({ email, password: passwordSchema, organization: organizationName });

export const bootstrapOutput = z.object({
  user: userSchema,
  organization: organizationSchema,
  identity: z.object({ id: uuid, name: z.string(), credentials: z.object({ token: z.string() }) }),
});
