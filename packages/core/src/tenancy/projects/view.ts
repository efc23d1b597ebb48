import type { Context } from "../../kernel/context.js";
import type { AccessRow } from "../../access/tables.js";
import type { AppStorage as Storage } from "../../schema.js";

/** Builds SPEC.md's Project object from its row and its environments. */
export async function toProject(_ctx: Context, storage: Storage, project: AccessRow<"projects">) {
  const envs = await storage.tables.environments.find({ projectId: project.id }, { orderBy: [["position", "asc"]] });
  return {
    id: project.id,
    _id: project.id,
    name: project.name,
    slug: project.slug,
    type: project.type as never,
    description: project.description,
    defaultProduct: project.defaultProduct,
    upgradeStatus: project.upgradeStatus,
    orgId: project.orgId,
    kmsCertificateKeyId: project.kmsCertificateKeyId,
    kmsSecretManagerKeyId: project.kmsSecretManagerKeyId,
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
    environments: envs.filter((e) => !e.deletedAt).map((e) => ({ name: e.name, slug: e.slug, id: e.id })),
    deletedEnvironments: envs
      .filter((e) => e.deletedAt)
      .map((e) => ({
        id: e.id,
        name: e.name,
        slug: e.slug,
        deleteAfter: e.deleteAfter as string,
        softDeletedAt: e.deletedAt as string,
        deletedBy: {
          type: e.deletedBy?.type ?? "",
          id: e.deletedBy?.id ?? "",
          email: e.deletedBy?.email ?? "",
          username: e.deletedBy?.username ?? "",
          firstName: e.deletedBy?.firstName ?? "",
          lastName: e.deletedBy?.lastName ?? "",
        },
      })),
    autoCapitalization: project.autoCapitalization,
    hasDeleteProtection: project.hasDeleteProtection,
    secretSharing: project.secretSharing,
    showSnapshotsLegacy: project.showSnapshotsLegacy,
    enforceEncryptedSecretManagerSecretMetadata: project.enforceEncryptedSecretManagerSecretMetadata,
    secretBlindIndexEnabled: project.secretBlindIndexEnabled,
    isLegacyAdditionalPrivilegesEnabled: project.isLegacyAdditionalPrivilegesEnabled,
    version: project.version,
    pitVersionLimit: project.pitVersionLimit,
    auditLogsRetentionDays: project.auditLogsRetentionDays,
    secretDetectionIgnoreValues: project.secretDetectionIgnoreValues,
  };
}
