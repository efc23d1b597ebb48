import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { sessionRepository } from "../sessions/repository.js";
import { agentVaultTables, type BundleRow } from "../tables.js";

export type BundleChanges = Pick<BundleRow, "name" | "description" | "serviceIds" | "grants" | "updatedAt">;

export const bundleRepository = defineRepository("agent-vault.bundles", (ctx) => {
  const t = tablesOf(ctx.storage, agentVaultTables);
  return {
    byId: (id: string): Promise<BundleRow | undefined> => t.agentAccessBundles.get(id),
    byIds: (ids: readonly string[]): Promise<BundleRow[]> =>
      ids.length ? t.agentAccessBundles.find({ id: { in: [...ids] } }) : Promise.resolve([]),
    byName: (projectId: string, name: string): Promise<BundleRow | undefined> => t.agentAccessBundles.findOne({ projectId, name }),
    /** Oldest first. */
    ofProject: (projectId: string): Promise<BundleRow[]> =>
      t.agentAccessBundles.find({ projectId }, { orderBy: [["createdAt", "asc"], ["id", "asc"]] }),
    insert: (bundle: BundleRow): Promise<void> => t.agentAccessBundles.insert(bundle),

    /** The bundle as changed; undefined when it is gone. */
    async update(id: string, changes: BundleChanges): Promise<BundleRow | undefined> {
      await t.agentAccessBundles.update({ id }, changes);
      return t.agentAccessBundles.get(id);
    },

    /** Deletes a bundle and ends the sessions opened on it, in one transaction. */
    remove: (bundle: BundleRow, at: string): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        await tx.repo(sessionRepository).revokeOfBundle(bundle.id, at);
        await tablesOf(tx.storage, agentVaultTables).agentAccessBundles.delete({ id: bundle.id });
      }),

    /** Takes removed services out of the bundles of their projects (the cascade of a service deletion). */
    async dropServices(projectIds: readonly string[], serviceIds: ReadonlySet<string>, at: string): Promise<void> {
      if (projectIds.length === 0) return;
      for (const bundle of await t.agentAccessBundles.find({ projectId: { in: [...projectIds] } })) {
        const kept = bundle.serviceIds.filter((id) => !serviceIds.has(id));
        if (kept.length !== bundle.serviceIds.length) await t.agentAccessBundles.update({ id: bundle.id }, { serviceIds: kept, updatedAt: at });
      }
    },
  };
});
