import { z } from "zod";
import { isoDateTime, slugPattern } from "../../kernel/schemas.js";
import { projectSchema } from "../../tenancy/projects/schemas.js";
import { projectScoped } from "../input-fields.js";

export const environmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  position: z.number().int(),
  projectId: z.string(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

/** Every environment answer: the environment and the project as it now is. */
export const environmentAnswer = z.object({ message: z.string(), workspace: projectSchema, environment: environmentSchema });

const name = z.string().trim().min(1).max(64);
const slug = z.string().trim().min(1).max(64).regex(slugPattern, "lower-case letters, digits and hyphens");
/** Positions count from 1; one past the end means the end. */
const position = z.number().int().min(1).max(10_000);

export const createEnvironmentInput = projectScoped({ name, slug, position: position.optional() });

export const updateEnvironmentInput = projectScoped({
  id: z.string().min(1),
  name: name.optional(),
  slug: slug.optional(),
  position: position.optional(),
});

export const deleteEnvironmentInput = projectScoped({ id: z.string().min(1) });

export const listEnvironmentsInput = projectScoped({});
export const environmentListOutput = z.object({ environments: z.array(environmentSchema) });
export const getEnvironmentInput = projectScoped({ id: z.string().min(1).max(255) });
export const environmentOutput = z.object({ environment: environmentSchema });
