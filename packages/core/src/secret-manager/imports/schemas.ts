import { z } from "zod";
import { isoDateTime } from "../../kernel/schemas.js";
import { environmentSlug, projectScoped } from "../input-fields.js";
import { ROOT_PATH, secretPathSchema } from "../paths.js";

export const secretImportSchema = z.object({
  id: z.string(),
  folderId: z.string(),
  importPath: z.string(),
  importEnv: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
  position: z.number().int(),
  isReplication: z.boolean(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

/** The importing folder. */
const location = { environment: environmentSlug, path: secretPathSchema.default(ROOT_PATH) };

export const createImportInput = projectScoped({
  ...location,
  import: z.object({ environment: environmentSlug, path: secretPathSchema }),
  isReplication: z.boolean().default(false),
});

export const listImportsInput = projectScoped(location);

export const deleteImportInput = projectScoped({ secretImportId: z.string().min(1).max(255) });
