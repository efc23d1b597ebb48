import { z } from "zod";
import { commaList, environmentSlug, projectScoped, queryBoolean, queryPositiveInt, secretName, secretType } from "../input-fields.js";
import type { MetadataItem, SecretChanges } from "./model.js";
import { secretPathSchema } from "../paths.js";

/** One request schema per operation; v3 (raw) and v4 routes share them (`workspaceId` or `projectId`). */

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
