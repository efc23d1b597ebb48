import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { pagination, projectIdField, recordId, searchField } from "../query-fields.js";
import { profileDefaultsSchema } from "../schemas.js";

/** Request and response shapes of certificate profiles (SPEC.md "Certificate profile", DESIGN.md §8). */

export const ISSUER_TYPES = ["ca", "self-signed"] as const;
/** Strongroom enrolls through its API only; EST, ACME and SCEP are not offered. */
export const ENROLLMENT_TYPES = ["api"] as const;

const profileSlug = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9-]+$/, "lower-case letters, digits and hyphens");
const profileDescription = z.string().max(255);
const externalConfigsSchema = z.strictObject({ template: z.string().max(1024) });

/**
 * SPEC.md's object field for field. Strongroom has no certificate policies and no separate
 * enrollment configurations, so `certificatePolicyId` and the `*ConfigId` fields are always null.
 */
export const certificateProfileSchema = z.strictObject({
  id: uuid,
  certificatePolicyId: uuid.nullable().describe("Always null: Strongroom has no certificate policies"),
  caId: uuid.nullable().describe("The issuing CA; null for self-signed profiles"),
  estConfigId: uuid.nullable().describe("Always null: EST enrollment is not offered"),
  apiConfigId: uuid.nullable().describe("Always null: API enrollment needs no separate configuration"),
  acmeConfigId: uuid.nullable().describe("Always null: ACME enrollment is not offered"),
  scepConfigId: uuid.nullable().describe("Always null: SCEP enrollment is not offered"),
  slug: z.string(),
  description: z.string(),
  enrollmentType: z.enum(ENROLLMENT_TYPES),
  issuerType: z.enum(ISSUER_TYPES),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  externalConfigs: externalConfigsSchema.nullable(),
  defaults: profileDefaultsSchema,
});

export const createProfileInput = z.object({
  projectId: projectIdField,
  slug: profileSlug,
  description: profileDescription.default(""),
  issuerType: z.enum(ISSUER_TYPES),
  caId: recordId.nullable().optional(),
  enrollmentType: z.enum(ENROLLMENT_TYPES).default("api"),
  defaults: profileDefaultsSchema.default({}),
  externalConfigs: externalConfigsSchema.nullable().optional(),
});

/** SPEC.md's PATCH. `defaults`, when sent, replaces the profile's defaults whole. */
export const updateProfileInput = z.object({
  id: recordId,
  slug: profileSlug.optional(),
  description: profileDescription.optional(),
  externalConfigs: externalConfigsSchema.nullable().optional(),
  defaults: profileDefaultsSchema.optional(),
});

export const listProfilesInput = z.object({ projectId: projectIdField, ...pagination, search: searchField });
export const profileRefInput = z.object({ id: recordId });
export const profileBySlugInput = z.object({ slug: profileSlug, projectId: projectIdField });

export const profileOutput = z.object({ certificateProfile: certificateProfileSchema });
export const profileListOutput = z.object({ certificateProfiles: z.array(certificateProfileSchema), totalCount: z.int() });

export type CertificateProfileObject = z.infer<typeof certificateProfileSchema>;
