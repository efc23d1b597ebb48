import { z } from "zod";
import { isoDateTime } from "../../kernel/schemas.js";

export const tagSummarySchema = z.object({ id: z.string(), slug: z.string(), color: z.string(), name: z.string() });

export const secretMetadataSchema = z.object({ key: z.string(), value: z.string(), isEncrypted: z.boolean() });

export const secretActorSchema = z
  .object({
    actorId: z.string(),
    actorType: z.string(),
    name: z.string(),
    membershipId: z.string().nullable(),
    groupId: z.string().nullable(),
  })
  .nullable();

/**
 * The one secret object every plaintext answer uses: the fields Infisical's v3/v4 API returns
 * and SPEC.md's batch-update shape (a superset of the single-secret shape).
 */
export const secretSchema = z.object({
  id: z.string(),
  _id: z.string(),
  workspace: z.string(),
  /** The Node SDK's type names the project this way. */
  workspaceId: z.string(),
  environment: z.string(),
  folderId: z.string(),
  secretPath: z.string(),
  secretKey: z.string(),
  secretValue: z.string(),
  /** True when the caller may see that the secret exists but not its value (which is then blank). */
  secretValueHidden: z.boolean(),
  secretComment: z.string(),
  secretReminderNote: z.string().nullable(),
  secretReminderRepeatDays: z.number().int().nullable(),
  skipMultilineEncoding: z.boolean(),
  version: z.number().int(),
  type: z.enum(["shared", "personal"]),
  tags: z.array(tagSummarySchema),
  secretMetadata: z.array(secretMetadataSchema),
  isRotatedSecret: z.boolean(),
  rotationId: z.string().nullable(),
  actor: secretActorSchema,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export type SecretObject = z.input<typeof secretSchema>;

export const importedSecretsSchema = z.object({
  secretPath: z.string(),
  environment: z.string(),
  folderId: z.string(),
  secrets: z.array(secretSchema),
});

export const secretListSchema = z.object({ secrets: z.array(secretSchema), imports: z.array(importedSecretsSchema) });

export const singleSecretSchema = z.object({ secret: secretSchema });

export const secretsSchema = z.object({ secrets: z.array(secretSchema) });

/** SPEC.md's "Secret (as returned when tags are attached)": the stored ciphertext, not the plaintext. */
export const encryptedSecretSchema = z.object({
  id: z.string(),
  _id: z.string(),
  workspace: z.string(),
  environment: z.string(),
  folderId: z.string(),
  userId: z.string().nullable(),
  version: z.number().int(),
  type: z.enum(["shared", "personal"]),
  secretKeyCiphertext: z.string(),
  secretKeyIV: z.string(),
  secretKeyTag: z.string(),
  secretValueCiphertext: z.string(),
  secretValueIV: z.string(),
  secretValueTag: z.string(),
  secretCommentCiphertext: z.string(),
  secretCommentIV: z.string(),
  secretCommentTag: z.string(),
  secretReminderNote: z.string().nullable(),
  secretReminderRepeatDays: z.number().int().nullable(),
  skipMultilineEncoding: z.boolean(),
  algorithm: z.literal("aes-256-gcm"),
  keyEncoding: z.literal("base64"),
  metadata: z.array(z.object({ key: z.string(), isEncrypted: z.boolean(), value: z.string() })),
  tags: z.array(tagSummarySchema),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export type ImportedSecrets = z.input<typeof importedSecretsSchema>;
