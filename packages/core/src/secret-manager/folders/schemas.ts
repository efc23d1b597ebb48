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
