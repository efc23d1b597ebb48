import { accessTables, type EnvironmentRow, type ProjectRow } from "../../access/tables.js";
import { keyTables, type DataKeyRow } from "../../crypto/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";
import { membershipRepository, type Principal } from "../memberships/repository.js";
import { permanentBuiltIn } from "../memberships/role-assignments.js";

/** A project as it is asked for; the rest of its row takes the defaults every project starts with. */
export interface NewProject {
  orgId: string;
  name: string;
  slug: string;
  type: string;
  description: string;
  template: string;
  hasDeleteProtection: boolean;
  /** A data key of the organization to seal secrets with; without one the project gets its own. */
  secretKeyId?: string;
  /** In the order they are listed. */
  environments: readonly { name: string; slug: string }[];
  /** Who becomes the project's admin: its creator, when the creator can hold a membership. */
  admin?: Principal;
}

export const projectRepository = defineRepository("projects", (ctx) => {
  const t = tablesOf(ctx.storage, accessTables);
  return {
    slugTaken: async (orgId: string, slug: string): Promise<boolean> => (await t.projects.findOne({ orgId, slug })) !== undefined,
    /** A data key of the organization, by id. */
    orgDataKey: (orgId: string, id: string): Promise<DataKeyRow | undefined> => tablesOf(ctx.storage, keyTables).kmsKeys.findOne({ id, orgId }),
    /** A project's environments in their listed order, soft-deleted ones included. */
    environmentsOf: (projectId: string): Promise<EnvironmentRow[]> => t.environments.find({ projectId }, { orderBy: [["position", "asc"]] }),

    /**
     * Creates a project whole, in one transaction: its data keys, its row, its environments and
     * its creator's admin membership.
     */
    create: (draft: NewProject): Promise<{ project: ProjectRow; environments: EnvironmentRow[] }> =>
      ctx.withTransaction(async (tx) => {
        const tables = tablesOf(tx.storage, accessTables);
        const now = tx.clock.now();
        const at = now.toISOString();
        const id = newId();
        const owner = { orgId: draft.orgId, projectId: id };
        const secretKeyId = draft.secretKeyId ?? (await tx.keys.createDataKey(tx.storage, owner, "secret-manager", now));
        const certificateKeyId = await tx.keys.createDataKey(tx.storage, owner, "certificates", now);
        const project: ProjectRow = {
          id,
          orgId: draft.orgId,
          name: draft.name,
          slug: draft.slug,
          type: draft.type,
          description: draft.description,
          defaultProduct: draft.type,
          upgradeStatus: null,
          template: draft.template,
          kmsCertificateKeyId: certificateKeyId,
          kmsSecretManagerKeyId: secretKeyId,
          autoCapitalization: false,
          hasDeleteProtection: draft.hasDeleteProtection,
          secretSharing: true,
          showSnapshotsLegacy: false,
          enforceEncryptedSecretManagerSecretMetadata: false,
          secretBlindIndexEnabled: true,
          isLegacyAdditionalPrivilegesEnabled: false,
          version: 3,
          pitVersionLimit: 10,
          auditLogsRetentionDays: 30,
          secretDetectionIgnoreValues: [],
          createdAt: at,
          updatedAt: at,
        };
        await tables.projects.insert(project);
        const environments: EnvironmentRow[] = draft.environments.map((env, position) => ({
          id: newId(),
          projectId: id,
          name: env.name,
          slug: env.slug,
          position,
          deletedAt: null,
          deleteAfter: null,
          deletedBy: null,
          createdAt: at,
          updatedAt: at,
        }));
        if (environments.length) await tables.environments.insertMany(environments);
        if (draft.admin) await tx.repo(membershipRepository).add(id, draft.admin, [permanentBuiltIn("admin")]);
        return { project, environments };
      }),
  };
});
