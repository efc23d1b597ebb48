import { z } from "zod";
import { isoDateTime, slugPattern, uuid } from "../../kernel/schemas.js";
import { environmentSlug, projectScoped, queryBoolean } from "../../secret-manager/input-fields.js";
import { secretPathSchema } from "../../secret-manager/paths.js";

/** Request and response shapes of dynamic secrets, as Infisical's API and `@infisical/sdk` use them. */

/** Where a dynamic secret lives: Infisical's `projectSlug` (or `projectId`), `environmentSlug`, `path`. */
export const folderFields = {
  environmentSlug,
  path: secretPathSchema.default("/"),
};

export const dynamicSecretName = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(64)
  .regex(slugPattern, "A dynamic secret's name is a slug: lower-case letters, digits and single hyphens");

const duration = z.string().trim().min(1).max(32);

export const metadataSchema = z.array(z.object({ key: z.string().trim().min(1).max(255), value: z.string().max(1020) })).max(50);

export const providerInput = z.object({
  type: z.string().min(1).max(64).describe("sql-database or redis"),
  inputs: z.record(z.string(), z.unknown()).describe("The provider's inputs; its root credentials are sealed and never answered"),
});

export const createDynamicSecretInput = projectScoped({
  ...folderFields,
  name: dynamicSecretName,
  provider: providerInput,
  defaultTTL: duration.describe("A lease's TTL when it asks for none: 30m, 1h, 7d"),
  maxTTL: duration.nullish().describe("The longest a lease may live, renewals included"),
  metadata: metadataSchema.optional(),
});

export const dynamicSecretRefInput = projectScoped({ ...folderFields, name: dynamicSecretName });

export const listDynamicSecretsInput = projectScoped(folderFields);

export const updateDynamicSecretInput = projectScoped({
  ...folderFields,
  name: dynamicSecretName,
  data: z.object({
    inputs: z.record(z.string(), z.unknown()).optional().describe("Merged over the stored inputs; the connection is validated again"),
    defaultTTL: duration.optional(),
    maxTTL: duration.nullish(),
    newName: dynamicSecretName.optional(),
    metadata: metadataSchema.optional(),
  }),
});

export const deleteDynamicSecretInput = projectScoped({
  ...folderFields,
  name: dynamicSecretName,
  isForced: queryBoolean.default(false).describe("Delete even when a lease cannot be revoked at the provider"),
});

/** A dynamic secret as answers show it (Infisical's sanitized shape): never its inputs. */
export const dynamicSecretSchema = z.object({
  id: uuid,
  name: z.string(),
  type: z.string(),
  version: z.int(),
  defaultTTL: z.string(),
  maxTTL: z.string().nullable(),
  folderId: uuid,
  projectId: uuid,
  environment: z.string(),
  secretPath: z.string(),
  status: z.string().nullable(),
  statusDetails: z.string().nullable(),
  gatewayId: z.null(),
  usernameTemplate: z.null(),
  metadata: metadataSchema,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const dynamicSecretOutput = z.object({ dynamicSecret: dynamicSecretSchema });
export const dynamicSecretListOutput = z.object({ dynamicSecrets: z.array(dynamicSecretSchema) });
