import { z } from "zod";
import { isoDateTime, slugPattern, uuid } from "../../kernel/schemas.js";

export const PROJECT_TYPES = ["secret-manager", "cert-manager", "kms", "secret-scanning", "pam", "agent-vault"] as const;
export const PROJECT_TEMPLATES = ["default"] as const;

/**
 * The types of SPEC.md's list that Strongroom has a product for. `secret-scanning` and `pam` are
 * Infisical products Strongroom does not build: creating such a project would give an empty shell
 * that no route serves, so it is refused with 422 naming the supported types (README, Projects).
 */
export const SUPPORTED_PROJECT_TYPES = ["secret-manager", "cert-manager", "kms", "agent-vault"] as const satisfies readonly (typeof PROJECT_TYPES)[number][];

const supported = new Set<string>(SUPPORTED_PROJECT_TYPES);

/** A project type to create: one of SPEC.md's, and one Strongroom serves. */
const creatableProjectType = z
  .enum(PROJECT_TYPES)
  .refine((type) => supported.has(type), {
    error: (issue) =>
      `Strongroom does not offer ${String(issue.input)} projects; the supported types are ${SUPPORTED_PROJECT_TYPES.join(", ")}`,
  });

export const environmentSummarySchema = z.object({ name: z.string(), slug: z.string(), id: z.string() });

export const deletedEnvironmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  deleteAfter: isoDateTime,
  softDeletedAt: isoDateTime,
  deletedBy: z.object({
    type: z.string(),
    id: z.string(),
    email: z.string(),
    username: z.string(),
    firstName: z.string(),
    lastName: z.string(),
  }),
});

/** SPEC.md's Project object, field for field. */
export const projectSchema = z.object({
  id: z.string(),
  _id: z.string(),
  name: z.string(),
  slug: z.string(),
  type: z.enum(PROJECT_TYPES),
  description: z.string(),
  defaultProduct: z.string(),
  upgradeStatus: z.string().nullable(),
  orgId: uuid,
  kmsCertificateKeyId: uuid,
  kmsSecretManagerKeyId: uuid,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  environments: z.array(environmentSummarySchema),
  deletedEnvironments: z.array(deletedEnvironmentSchema),
  autoCapitalization: z.boolean(),
  hasDeleteProtection: z.boolean(),
  secretSharing: z.boolean(),
  showSnapshotsLegacy: z.boolean(),
  enforceEncryptedSecretManagerSecretMetadata: z.boolean(),
  secretBlindIndexEnabled: z.boolean(),
  isLegacyAdditionalPrivilegesEnabled: z.boolean(),
  version: z.number().int(),
  pitVersionLimit: z.number().int(),
  auditLogsRetentionDays: z.number().int(),
  secretDetectionIgnoreValues: z.array(z.string()),
});

export const createProjectInput = z.object({
  projectName: z.string().trim().min(1).max(64),
  projectDescription: z.string().max(1024).optional(),
  slug: z.string().min(5).max(64).regex(slugPattern, "lower-case letters, digits and hyphens").optional(),
  kmsKeyId: z.string().optional(),
  template: z.string().min(1).max(64).default("default"),
  type: creatableProjectType.default("secret-manager"),
  shouldCreateDefaultEnvs: z.boolean().default(true),
  hasDeleteProtection: z.boolean().default(false),
  /** Needed when the calling user belongs to more than one organization. */
  organizationId: z.string().min(1).optional(),
});

/** Infisical's list filter: a project type, or `all` (the same as none). */
const projectTypeFilter = z.enum([...PROJECT_TYPES, "all"]);

export const listProjectsInput = z.strictObject({
  type: projectTypeFilter.optional(),
  /** A user in several organizations lists one of them; without it, all of them. */
  organizationId: z.string().min(1).max(255).optional(),
});
export const projectListOutput = z.object({ projects: z.array(projectSchema) });
/** The same list under Infisical's older key, on `GET /api/v1/workspace`. */
export const workspaceListOutput = z.object({ workspaces: z.array(projectSchema) });

export const projectIdInput = z.strictObject({ projectId: z.string().min(1).max(255) });
export const projectOutput = z.object({ project: projectSchema });
export const workspaceOutput = z.object({ workspace: projectSchema });

/** Infisical's project update, field for field; what is left out stays as it is. */
export const updateProjectInput = z.strictObject({
  projectId: z.string().min(1).max(255),
  name: z.string().trim().min(1).max(64).optional(),
  description: z.string().trim().max(1024).optional(),
  slug: z.string().min(5).max(64).regex(slugPattern, "lower-case letters, digits and hyphens").optional(),
  autoCapitalization: z.boolean().optional(),
  hasDeleteProtection: z.boolean().optional(),
  enforceEncryptedSecretManagerSecretMetadata: z.boolean().optional(),
  secretSharing: z.boolean().optional(),
  showSnapshotsLegacy: z.boolean().optional(),
  secretDetectionIgnoreValues: z.array(z.string().max(1024)).max(1000).optional(),
  pitVersionLimit: z.number().int().min(1).max(100).optional(),
});
export type ProjectUpdate = Omit<z.output<typeof updateProjectInput>, "projectId">;
