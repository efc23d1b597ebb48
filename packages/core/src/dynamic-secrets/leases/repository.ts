import { defineRepository } from "../../kernel/context.js";
import { openLeaseData, sealLeaseData } from "../sealing.js";
import { tablesOf } from "../../storage/table.js";
import { dynamicSecretTables, type LeaseRow } from "../tables.js";

/** Leases not yet revoked at the provider: what counts against a dynamic secret's limit. */
const UNREVOKED = { ne: "revoked" } as const;

/** Every query on leases; the read-modify-writes are single conditional statements or take the secret's row lock. */
export const leaseRepository = defineRepository("dynamic-secret-leases", (ctx) => {
  const t = tablesOf(ctx.storage, dynamicSecretTables);
  const now = () => ctx.clock.now().toISOString();

  return {
    byId: (id: string) => t.dynamicSecretLeases.get(id),

    /** A secret's leases not yet revoked, oldest first. */
    unrevokedOf: (dynamicSecretId: string) =>
      t.dynamicSecretLeases.find({ dynamicSecretId, status: UNREVOKED }, { orderBy: [["createdAt", "asc"], ["id", "asc"]] }),

    countUnrevoked: (dynamicSecretId: string) => t.dynamicSecretLeases.count({ dynamicSecretId, status: UNREVOKED }),

    /**
     * Records a lease unless its secret already has `limit` unrevoked ones (false then). The
     * secret's row is locked meanwhile, so concurrent creations cannot pass the limit together;
     * false too when the secret went away.
     */
    insertWithinLimit: (lease: LeaseRow, limit: number): Promise<boolean> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, dynamicSecretTables);
        const [secret] = await w.dynamicSecrets.find({ id: lease.dynamicSecretId, deletedAt: null }, { forUpdate: true });
        if (!secret) return false;
        if ((await w.dynamicSecretLeases.count({ dynamicSecretId: lease.dynamicSecretId, status: UNREVOKED })) >= limit) return false;
        await w.dynamicSecretLeases.insert(lease);
        return true;
      }),

    /**
     * Takes a lease for one revocation until `until`: false when it is revoked already or another
     * revocation holds it (on this node or another). Of concurrent callers exactly one gets true.
     */
    async claim(id: string, until: string): Promise<boolean> {
      const at = now();
      const claimed = await t.dynamicSecretLeases.update(
        { id, status: UNREVOKED, $or: [{ claimedUntil: null }, { claimedUntil: { lte: at } }] },
        { claimedUntil: until },
      );
      return claimed === 1;
    },

    /** The outcome of a claimed revocation that succeeded (or was forced). */
    async markRevoked(id: string, details: string): Promise<LeaseRow | undefined> {
      const at = now();
      await t.dynamicSecretLeases.update(
        { id },
        { status: "revoked", statusDetails: details, revokedAt: at, claimedUntil: null, nextAttemptAt: null, sealedData: null, updatedAt: at },
      );
      return t.dynamicSecretLeases.get(id);
    },

    /** The outcome of a claimed revocation that failed: retried at `nextAttemptAt`. */
    async markRevokeFailed(id: string, details: string, attempts: number, nextAttemptAt: string): Promise<LeaseRow | undefined> {
      await t.dynamicSecretLeases.update(
        { id },
        { status: "revoking", statusDetails: details, revokeAttempts: attempts, nextAttemptAt, claimedUntil: null, updatedAt: now() },
      );
      return t.dynamicSecretLeases.get(id);
    },

    /** Moves an active lease's expiry (version + 1); undefined when it is no longer active. */
    renewTo: (id: string, expiresAt: string): Promise<LeaseRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, dynamicSecretTables);
        const [lease] = await w.dynamicSecretLeases.find({ id, status: "active" }, { forUpdate: true });
        if (!lease) return undefined;
        const next = { ...lease, expiresAt, version: lease.version + 1, updatedAt: tx.clock.now().toISOString() };
        await w.dynamicSecretLeases.update({ id, status: "active" }, { expiresAt, version: next.version, updatedAt: next.updatedAt });
        return next;
      }),

    /** The active leases of a dynamic secret the server holds for one agent proxy and proxied service, newest first. */
    heldBy: (proxyId: string, serviceId: string, dynamicSecretId: string) =>
      t.dynamicSecretLeases.find(
        { holderProxyId: proxyId, holderServiceId: serviceId, dynamicSecretId, status: "active" },
        { orderBy: [["createdAt", "desc"], ["id", "desc"]] },
      ),

    /**
     * Hands held leases over to the expiry job, which revokes them at its next run: those of a
     * proxy, of proxied services, or by id, that are still active. Inside the caller's transaction
     * (a proxy or a service going away), since the provider cannot be called there.
     */
    async release(which: { proxyId: string } | { serviceIds: readonly string[] } | { leaseIds: readonly string[] }, reason: string): Promise<number> {
      const where =
        "proxyId" in which
          ? { holderProxyId: which.proxyId }
          : "serviceIds" in which
            ? { holderServiceId: { in: [...which.serviceIds] } }
            : { id: { in: [...which.leaseIds] } };
      if (!("proxyId" in which) && ("serviceIds" in which ? which.serviceIds : which.leaseIds).length === 0) return 0;
      const at = now();
      return t.dynamicSecretLeases.update({ ...where, status: "active" }, { status: "revoking", statusDetails: reason, nextAttemptAt: at, updatedAt: at });
    },

    /**
     * The rewrap step of `rotate-data-keys` for the credentials of leases held for agent proxies:
     * re-seals those sealed under `fromKeyId` with `toKeyId`, in one transaction. Returns how many moved.
     */
    async resealHeldData(projectId: string, fromKeyId: string, toKeyId: string): Promise<number> {
      await Promise.all([ctx.keys.dataKey(ctx.storage, fromKeyId), ctx.keys.dataKey(ctx.storage, toKeyId)]);
      return ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, dynamicSecretTables);
        const rows = await w.dynamicSecretLeases.find({ projectId, sealedWith: fromKeyId, sealedData: { ne: null } }, { forUpdate: true });
        for (const row of rows) {
          const sealedData = await sealLeaseData(tx, toKeyId, row.id, await openLeaseData(tx, fromKeyId, row.id, row.sealedData!));
          await w.dynamicSecretLeases.update({ id: row.id, sealedWith: fromKeyId }, { sealedData, sealedWith: toKeyId });
        }
        return rows.length;
      });
    },

    /** Leases whose revocation is due at `at`: expired active ones and failed ones whose retry time came, unclaimed. */
    dueForRevocation: (at: string, limit: number) =>
      t.dynamicSecretLeases.find(
        {
          $or: [
            { status: "active", expiresAt: { lte: at } },
            { status: "revoking", nextAttemptAt: { lte: at } },
          ],
        },
        { orderBy: [["expiresAt", "asc"], ["id", "asc"]], limit },
      ),
  };
});
