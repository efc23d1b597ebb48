import { leaseRepository } from "../../dynamic-secrets/leases/repository.js";
import { defineRepository, type Context } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { sessionRepository } from "../sessions/repository.js";
import { agentVaultTables, type BundleGrant, type BundleRow } from "../tables.js";

export type BundleChanges = Pick<BundleRow, "name" | "description" | "serviceIds" | "grants" | "updatedAt">;

/**
 * Leases held for services a bundle no longer grants go to the expiry job; a proxy that still
 * brokers such a service through another bundle gets a new lease on its next use.
 */
async function releaseServices(tx: Context, serviceIds: readonly string[], reason: string): Promise<void> {
  await tx.repo(leaseRepository).release({ serviceIds }, reason);
}

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
      return ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, agentVaultTables);
        const [before] = await w.agentAccessBundles.find({ id }, { forUpdate: true });
        await w.agentAccessBundles.update({ id }, changes);
        if (before) await releaseServices(tx, before.serviceIds.filter((s) => !changes.serviceIds.includes(s)), "its service left the access bundle");
        return w.agentAccessBundles.get(id);
      });
    },

    /** Deletes a bundle and ends the sessions opened on it, in one transaction. */
    remove: (bundle: BundleRow, at: string): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        await tx.repo(sessionRepository).revokeOfBundle(bundle.id, at);
        await releaseServices(tx, bundle.serviceIds, "its access bundle was deleted");
        await tablesOf(tx.storage, agentVaultTables).agentAccessBundles.delete({ id: bundle.id });
      }),

    /** Part of a project deletion: its bundles go, and the sessions opened on them end. */
    removeOfProject: (projectId: string, at: string): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        for (const bundle of await tablesOf(tx.storage, agentVaultTables).agentAccessBundles.find({ projectId })) await tx.repo(bundleRepository).remove(bundle, at);
      }),

    /**
     * Takes a principal whose project membership is gone out of the project's bundles, and ends the
     * sessions it opened on them: a grant must not outlive the membership it was given under.
     */
    removeGrantee: (projectId: string, grantee: BundleGrant, at: string): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, agentVaultTables);
        for (const bundle of await w.agentAccessBundles.find({ projectId }, { forUpdate: true })) {
          const kept = bundle.grants.filter((g) => !(g.type === grantee.type && g.id === grantee.id));
          if (kept.length !== bundle.grants.length) await w.agentAccessBundles.update({ id: bundle.id }, { grants: kept, updatedAt: at });
          await tx.repo(sessionRepository).revokeOfPrincipal(bundle.id, grantee, at);
        }
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
