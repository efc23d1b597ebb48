import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";

/** SPEC.md's project role. */
export const projectRoleSchema = z.object({
  id: uuid,
  name: z.string(),
  slug: z.string(),
  projectId: z.string(),
  description: z.string(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
