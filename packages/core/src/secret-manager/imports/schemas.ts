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

/**
 * Infisical's PATCH: `import` says what changes, the source and/or the position (1 is first;
 * past the end means last). The importing folder may be named too; it must then be the import's.
 */
export const updateImportInput = projectScoped(
  {
    secretImportId: z.string().min(1).max(255),
    environment: environmentSlug.optional(),
    path: secretPathSchema.optional(),
    import: z
      .strictObject({
        environment: environmentSlug.optional(),
        path: secretPathSchema.optional(),
        position: z.number().int().min(1).max(100_000).optional(),
      })
      .refine((change) => Object.values(change).some((v) => v !== undefined), "Name what changes: environment, path or position"),
  },
  { strict: true },
);
