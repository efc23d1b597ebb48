import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { agentVaultTables, type ProxyRow, type SessionRow } from "../tables.js";

/** The sessions a proxy may serve at `now`: its organization's, unrevoked, unexpired, bound to it or to no proxy. */
const servedBy = (proxy: Pick<ProxyRow, "id" | "orgId">, now: Date) => ({
  orgId: proxy.orgId,
  revokedAt: null,
  expiresAt: { gt: now.toISOString() },
  proxyId: { in: [null, proxy.id] },
});

export const sessionRepository = defineRepository("agent-vault.sessions", (ctx) => {
  const t = tablesOf(ctx.storage, agentVaultTables);
  return {
    byId: (id: string): Promise<SessionRow | undefined> => t.agentSessions.get(id),
    insert: (session: SessionRow): Promise<void> => t.agentSessions.insert(session),

    /** Oldest first. */
    servedBy: (proxy: Pick<ProxyRow, "id" | "orgId">, now: Date): Promise<SessionRow[]> =>
      t.agentSessions.find(servedBy(proxy, now), { orderBy: [["createdAt", "asc"], ["id", "asc"]] }),
    servedByWithToken: (proxy: Pick<ProxyRow, "id" | "orgId">, tokenHash: string, now: Date): Promise<SessionRow | undefined> =>
      t.agentSessions.findOne({ ...servedBy(proxy, now), tokenHash }),

    /** Ends a session unless it ended already. */
    revoke: async (id: string, at: string): Promise<void> => {
      await t.agentSessions.update({ id, revokedAt: null }, { revokedAt: at });
    },
    /** Ends the live sessions opened on a bundle (it is going away). */
    revokeOfBundle: async (bundleId: string, at: string): Promise<void> => {
      await t.agentSessions.update({ bundleId, revokedAt: null }, { revokedAt: at });
    },
    /** Ends the live sessions a principal opened on a bundle (its grant is gone). */
    revokeOfPrincipal: async (bundleId: string, principal: { type: string; id: string }, at: string): Promise<void> => {
      await t.agentSessions.update({ bundleId, principalType: principal.type, principalId: principal.id, revokedAt: null }, { revokedAt: at });
    },
    /** Ends the live sessions bound to a proxy (it is going away). */
    revokeBoundTo: async (proxyId: string, at: string): Promise<void> => {
      await t.agentSessions.update({ proxyId, revokedAt: null }, { revokedAt: at });
    },

    /** Sessions that expired, or were revoked, before `cutoff`. */
    async purgeLapsedBefore(cutoff: string): Promise<void> {
      await t.agentSessions.delete({ expiresAt: { lt: cutoff } });
      await t.agentSessions.delete({ revokedAt: { lt: cutoff } });
    },
  };
});
