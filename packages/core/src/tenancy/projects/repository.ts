import { accessTables, type EnvironmentRow, type ProjectRow } from "../../access/tables.js";
import { keyTables, type DataKeyRow } from "../../crypto/tables.js";
import { defineRepository, type Context } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";
import { projectRemoved } from "../hooks.js";
import { membershipRepository, type Principal } from "../memberships/repository.js";
import { permanentBuiltIn } from "../memberships/role-assignments.js";
import type { ProjectUpdate } from "./schemas.js";

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
    /**
     * A data key of the organization itself: never one of its projects' keys, which are theirs alone
     * (issue 15, principle 12 — a project created on another's key could read what it seals).
     */
    orgDataKey: (orgId: string, id: string): Promise<DataKeyRow | undefined> => tablesOf(ctx.storage, keyTables).kmsKeys.findOne({ id, orgId, projectId: null }),
    /** A project's environments in their listed order, soft-deleted ones included. */
    environmentsOf: (projectId: string): Promise<EnvironmentRow[]> => t.environments.find({ projectId }, { orderBy: [["position", "asc"]] }),

    /** The environments of several projects, each list in its listed order. */
    async environmentsOfMany(projectIds: readonly string[]): Promise<Map<string, EnvironmentRow[]>> {
      const byProject = new Map<string, EnvironmentRow[]>(projectIds.map((id) => [id, []]));
      if (projectIds.length === 0) return byProject;
      for (const env of await t.environments.find({ projectId: { in: [...projectIds] } }, { orderBy: [["position", "asc"]] })) {
        byProject.get(env.projectId)?.push(env);
      }
      return byProject;
    },

    /** Every project of these organizations. */
    inOrganizations: (orgIds: readonly string[]): Promise<ProjectRow[]> =>
      orgIds.length ? t.projects.find({ orgId: { in: [...orgIds] } }) : Promise.resolve([]),

    byIds: (ids: readonly string[]): Promise<ProjectRow[]> => (ids.length ? t.projects.find({ id: { in: [...ids] } }) : Promise.resolve([])),

    /** The ids of the projects a user or identity is a member of. */
    async memberOf(principal: Principal): Promise<Set<string>> {
      const rows = await t.projectMemberships.find(principal.kind === "user" ? { userId: principal.id } : { identityId: principal.id });
      return new Set(rows.map((m) => m.projectId));
    },

    /** The project as changed. */
    async update(id: string, changes: ProjectUpdate, at: string): Promise<ProjectRow> {
      await t.projects.update({ id }, { ...changes, updatedAt: at });
      const row = await t.projects.get(id);
      if (!row) throw new Error(`project ${id} vanished during its update`);
      return row;
    },

    /**
     * Deletes a project with everything in it, in one transaction: what the areas above keep there
     * (`projectRemoved`), then its memberships, roles and privileges, its environments, its data
     * keys and its row. The row is locked and read again first, and `decide` sees it as it now is
     * (a concurrent change waits): it refuses by throwing, or returns the answer. Undefined when
     * the project is already gone.
     */
    remove: <T>(projectId: string, at: string, decide: (tx: Context, project: ProjectRow) => Promise<T>): Promise<T | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, accessTables);
        const [project] = await w.projects.find({ id: projectId }, { forUpdate: true });
        if (!project) return undefined;
        const answer = await decide(tx, project);
        await tx.emit(projectRemoved, { projectId, orgId: project.orgId, at });
        const memberships = await w.projectMemberships.find({ projectId });
        if (memberships.length) await w.membershipRoles.delete({ membershipId: { in: memberships.map((m) => m.id) } });
        await w.identityPrivileges.delete({ projectId });
        await w.projectMemberships.delete({ projectId });
        await w.projectRoles.delete({ projectId });
        await w.environments.delete({ projectId });
        await tablesOf(tx.storage, keyTables).kmsKeys.delete({ projectId });
        await w.projects.delete({ id: projectId });
        return answer;
      }),

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
          // v1 and v2 additional privileges both work in every project (DESIGN.md §11).
          isLegacyAdditionalPrivilegesEnabled: true,
          version: 3,
          pitVersionLimit: 10,
          auditLogsRetentionDays: 30,
          secretDetectionIgnoreValues: [],
          createdAt: at,
          updatedAt: at,
        };
        await tables.projects.insert(project);
        const environments: EnvironmentRow[] = draft.environments.map((env, index) => ({
          id: newId(),
          projectId: id,
          name: env.name,
          slug: env.slug,
          // Positions count from 1, as in Infisical.
          position: index + 1,
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
