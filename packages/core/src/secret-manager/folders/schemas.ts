import { z } from "zod";
import { isoDateTime } from "../../kernel/schemas.js";
import { environmentSlug, projectScoped, queryBoolean } from "../input-fields.js";
import { FOLDER_NAME_PATTERN, ROOT_PATH, secretPathSchema } from "../paths.js";

export const folderSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  parentId: z.string(),
  envId: z.string(),
  path: z.string(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

const folderName = z.string().trim().min(1).max(64).regex(FOLDER_NAME_PATTERN, "Folder names hold only letters, digits, '-' and '_'");

export const createFolderInput = projectScoped({
  environment: environmentSlug,
  name: folderName,
  /** The parent folder's path. */
  path: secretPathSchema.default(ROOT_PATH),
  /** Infisical's former name for `path`. */
  directory: secretPathSchema.optional(),
  description: z.string().max(1024).nullable().optional(),
});

export const listFoldersInput = projectScoped({
  environment: environmentSlug,
  path: secretPathSchema.default(ROOT_PATH),
  directory: secretPathSchema.optional(),
  recursive: queryBoolean.default(false),
});

export const deleteFolderInput = projectScoped({
  environment: environmentSlug,
  path: secretPathSchema.default(ROOT_PATH),
  directory: secretPathSchema.optional(),
  folderIdOrName: z.string().min(1).max(255).optional(),
});

/** Infisical's folder-by-id answer: the folder with its environment and project. */
export const folderDetailSchema = folderSchema.extend({
  projectId: z.string(),
  environment: z.object({ envId: z.string(), envName: z.string(), envSlug: z.string() }),
});

export const getFolderInput = z.object({ id: z.string().min(1).max(255) });

/**
 * Infisical's PATCH: `name` renames the folder in place (everything below it moves with it),
 * `description` replaces its description. `path`, the parent folder's path, may name where the
 * folder is; it must then be where it is.
 */
export const updateFolderInput = projectScoped(
  {
    folderId: z.string().min(1).max(255),
    environment: environmentSlug,
    name: folderName.optional(),
    path: secretPathSchema.optional(),
    directory: secretPathSchema.optional(),
    description: z.string().max(1024).nullable().optional(),
  },
  { strict: true },
).refine((input) => input.name !== undefined || input.description !== undefined, { message: "Name what changes: name or description", path: ["name"] });
