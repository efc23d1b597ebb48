import { z } from "zod";
import { isoDateTime, slugPattern } from "../../kernel/schemas.js";
import { projectScoped } from "../input-fields.js";

export const tagSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  color: z.string(),
  projectId: z.string(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const createTagInput = projectScoped({
  slug: z.string().trim().min(1).max(64).regex(slugPattern, "lower-case letters, digits and hyphens"),
  name: z.string().trim().min(1).max(64).optional(),
  color: z.string().trim().max(32).optional(),
});

export const listTagsInput = projectScoped({});

export const deleteTagInput = projectScoped({ tagId: z.string().min(1).max(255) });
