import { z } from "zod";
import { isoDateTime } from "../../kernel/schemas.js";
import { commaList, environmentSlug, projectScoped, queryBoolean, queryPositiveInt, secretName, secretType } from "../input-fields.js";
import { secretPathSchema } from "../paths.js";
import type { MetadataItem, SecretChanges } from "./model.js";

/** One request schema per operation, then the answers; v3 (raw) and v4 routes share them (`workspaceId` or `projectId`). */

const MAX_BATCH = 5000;
const path = secretPathSchema.default("/");

export const metadataInput = z
  .array(
    z.object({
      key: z.string().trim().min(1).max(255),
      value: z.string().max(10_000).default(""),
      isEncrypted: z.boolean().default(false),
    }),
  )
  .max(100);

/** Infisical's older `metadata` map of plain strings. */
const legacyMetadata = z.record(z.string().max(255), z.string().max(10_000));

const tagIds = z.array(z.string().min(1).max(255)).max(100);
const comment = z.string().max(20_000);
const reminderNote = z.string().max(1024).nullable();
const reminderRepeatDays = z.number().int().min(1).max(365).nullable();

/** Fields a secret write may set, with the names Infisical's API gives them. */
const writableFields = {
  secretValue: z.string().optional(),
  secretComment: comment.optional(),
  tagIds: tagIds.optional(),
  skipMultilineEncoding: z.boolean().optional(),
  secretReminderNote: reminderNote.optional(),
  secretReminderRepeatDays: reminderRepeatDays.optional(),
  secretMetadata: metadataInput.optional(),
  metadata: legacyMetadata.optional(),
};

type WritableFields = { [K in keyof typeof writableFields]?: z.output<(typeof writableFields)[K]> };

export function metadataOf(input: Pick<WritableFields, "secretMetadata" | "metadata">): MetadataItem[] | undefined {
  if (input.secretMetadata) return input.secretMetadata;
  if (input.metadata) return Object.entries(input.metadata).map(([key, value]) => ({ key, value, isEncrypted: false }));
  return undefined;
}

const includeImports = {
  includeImports: queryBoolean.optional(),
  /** Infisical's list endpoints spell it this way; both are accepted. */
  include_imports: queryBoolean.optional(),
};

/** Replace `${...}` references in values with the referenced values (see references.ts). */
const expandSecretReferences = queryBoolean.default(false);

export const listSecretsInput = projectScoped({
  environment: environmentSlug,
  secretPath: path,
  recursive: queryBoolean.default(false),
  tagSlugs: commaList.optional(),
  viewSecretValue: queryBoolean.default(true),
  expandSecretReferences,
  ...includeImports,
  /**
   * Infisical's list semantics: without it, the caller's personal overrides are listed beside the
   * shared secrets they override (both items; imports show shared secrets only); with it, each
   * override takes its shared secret's place, in the folder and in its imports.
   */
  includePersonalOverrides: queryBoolean.optional(),
  include_personal_overrides: queryBoolean.optional(),
});

export const getSecretInput = projectScoped({
  secretName,
  environment: environmentSlug,
  secretPath: path,
  /** Omitted: the caller's personal override if it has one, else the shared secret. */
  type: secretType.optional(),
  version: queryPositiveInt.optional(),
  viewSecretValue: queryBoolean.default(true),
  expandSecretReferences,
  ...includeImports,
});

export const createSecretInput = projectScoped({
  secretName,
  environment: environmentSlug,
  secretPath: path,
  type: secretType.default("shared"),
  ...writableFields,
});

export const updateSecretInput = projectScoped({
  secretName,
  environment: environmentSlug,
  secretPath: path,
  type: secretType.default("shared"),
  newSecretName: secretName.optional(),
  ...writableFields,
});

export const deleteSecretInput = projectScoped({
  secretName,
  environment: environmentSlug,
  secretPath: path,
  type: secretType.default("shared"),
});

export const createSecretsInput = projectScoped({
  environment: environmentSlug,
  secretPath: path,
  secrets: z
    .array(z.object({ secretKey: secretName, secretPath: secretPathSchema.optional(), type: secretType.default("shared"), ...writableFields }))
    .min(1)
    .max(MAX_BATCH),
});

export const updateSecretsInput = projectScoped({
  environment: environmentSlug,
  /** The path of items that name none. */
  secretPath: path,
  mode: z.enum(["ignore", "upsert", "failOnNotFound"]).default("failOnNotFound"),
  secrets: z
    .array(z.object({ secretKey: secretName, secretPath: secretPathSchema.optional(), newSecretName: secretName.optional(), ...writableFields }))
    .min(1)
    .max(MAX_BATCH),
});

export const deleteSecretsInput = projectScoped({
  environment: environmentSlug,
  secretPath: path,
  secrets: z
    .array(z.object({ secretKey: secretName, secretPath: secretPathSchema.optional(), type: secretType.default("shared") }))
    .min(1)
    .max(MAX_BATCH),
});

export const secretTagsInput = projectScoped({
  secretName,
  environment: environmentSlug,
  secretPath: path,
  type: secretType.default("shared"),
  tagSlugs: z.array(z.string().min(1).max(64)).min(1).max(100),
});

/** The changes an input's writable fields ask for: only what it names. */
export function changesOf(input: WritableFields & { newSecretName?: string }): SecretChanges {
  return {
    newKey: input.newSecretName,
    value: input.secretValue,
    comment: input.secretComment,
    metadata: metadataOf(input),
    tagIds: input.tagIds,
    reminderNote: input.secretReminderNote,
    reminderRepeatDays: input.secretReminderRepeatDays,
    skipMultilineEncoding: input.skipMultilineEncoding,
  };
}

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

/** Infisical's version listing: newest first, the current state included; a page of `limit` from `offset`. */
export const listSecretVersionsInput = z.object({
  secretId: z.string().min(1).max(255),
  offset: z.union([z.number().int().min(0), z.string().regex(/^\d{1,9}$/, "Expected a non-negative integer").transform(Number)]).default(0),
  limit: z.union([z.number().int(), z.string().regex(/^\d{1,3}$/, "Expected an integer").transform(Number)]).pipe(z.number().int().min(1).max(100)).default(20),
});

export const rollbackSecretInput = z.strictObject({
  secretId: z.string().min(1).max(255),
  /** The version whose value, comment and metadata come back. */
  version: z.number().int().min(1),
});

export const secretVersionsSchema = z.object({ secretVersions: z.array(secretSchema) });
