import { rankedLive } from "../../access/environment-order.js";
import type { EnvironmentRow, ProjectRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { projectRepository } from "./repository.js";

/** SPEC.md's Project object, from its row and its environments (in their listed order). */
export function projectObject(project: ProjectRow, envs: readonly EnvironmentRow[]) {
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
    environments: rankedLive(envs).map((e) => ({ name: e.name, slug: e.slug, id: e.id })),
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
    // Both generations of additional privileges work in every project, including those stored before the flag was set.
    isLegacyAdditionalPrivilegesEnabled: true,
    version: project.version,
    pitVersionLimit: project.pitVersionLimit,
    auditLogsRetentionDays: project.auditLogsRetentionDays,
    secretDetectionIgnoreValues: project.secretDetectionIgnoreValues,
  };
}

export type ProjectObject = ReturnType<typeof projectObject>;

/** SPEC.md's Project object of a stored project, its environments read through `ctx` (and so its transaction, if any). */
export async function toProject(ctx: Context, project: ProjectRow): Promise<ProjectObject> {
  return projectObject(project, await ctx.repo(projectRepository).environmentsOf(project.id));
}
