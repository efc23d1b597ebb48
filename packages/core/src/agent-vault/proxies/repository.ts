import { leaseRepository } from "../../dynamic-secrets/leases/repository.js";
import { defineRepository, type Context } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { revokeTokensOf } from "../../tenancy/auth/tokens.js";
import { sessionRepository } from "../sessions/repository.js";
import { agentVaultTables, type EnrollmentTokenRow, type ProxyRow } from "../tables.js";
import type { RootCaFacts } from "./root-ca.js";

export type ProxyChanges = Partial<Pick<ProxyRow, "name" | "trafficPolicy" | "allowedHosts" | "pollInterval">> & Pick<ProxyRow, "updatedAt">;

/** Inside `tx`'s transaction: a proxy's row, locked until it ends. */
const lockProxy = async (tx: Context, id: string): Promise<ProxyRow | undefined> =>
  (await tablesOf(tx.storage, agentVaultTables).agentProxies.find({ id }, { forUpdate: true }))[0];

/** Agent proxies and their enrollment tokens (at most one per proxy). */
export const proxyRepository = defineRepository("agent-vault.proxies", (ctx) => {
  const t = tablesOf(ctx.storage, agentVaultTables);

  return {
    byId: (id: string): Promise<ProxyRow | undefined> => t.agentProxies.get(id),
    /** Oldest first. */
    ofOrganization: (orgId: string): Promise<ProxyRow[]> => t.agentProxies.find({ orgId }, { orderBy: [["createdAt", "asc"], ["id", "asc"]] }),
    insert: (proxy: ProxyRow): Promise<void> => t.agentProxies.insert(proxy),

    /** The proxy as changed; undefined when it is gone. */
    async update(id: string, changes: ProxyChanges): Promise<ProxyRow | undefined> {
      await t.agentProxies.update({ id }, changes);
      return t.agentProxies.get(id);
    },

    /**
     * Records a proxy's check-in: the proxy as it was read, or undefined when it is gone. The row
     * stays locked from the read to the write, so the settings a check-in answers with are the
     * ones it was recorded against, whatever changes the proxy concurrently.
     */
    heartbeat: (id: string, at: string): Promise<ProxyRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const proxy = await lockProxy(tx, id);
        if (proxy) await tablesOf(tx.storage, agentVaultTables).agentProxies.update({ id }, { heartbeat: at });
        return proxy;
      }),

    /**
     * Records the root CA a proxy enrolled with. Enrolling is the proxy's first check-in: it is
     * running at that moment, so it shows healthy at once rather than after its first poll.
     */
    recordEnrollment: async (id: string, ca: RootCaFacts, at: string): Promise<void> => {
      await t.agentProxies.update({ id }, { rootCaFingerprint: ca.fingerprint, rootCaExpiresAt: ca.expiresAt, heartbeat: at, updatedAt: at });
    },

    /**
     * Takes a proxy's enrollment away, in one transaction: its access tokens and outstanding
     * enrollment token stop working and its check-in and root CA are forgotten.
     */
    revoke: (id: string, at: string): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        await revokeTokensOf(tx, "agent-proxy", id);
        const w = tablesOf(tx.storage, agentVaultTables);
        await w.agentProxyEnrollmentTokens.delete({ proxyId: id });
        await w.agentProxies.update({ id }, { heartbeat: null, rootCaFingerprint: null, rootCaExpiresAt: null, updatedAt: at });
      }),

    /**
     * Deletes a proxy, in one transaction: its tokens stop working, the sessions bound to it end,
     * and the dynamic-secret leases held for it go to the expiry job for revocation.
     */
    remove: (id: string, at: string): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        await revokeTokensOf(tx, "agent-proxy", id);
        const w = tablesOf(tx.storage, agentVaultTables);
        await w.agentProxyEnrollmentTokens.delete({ proxyId: id });
        await tx.repo(sessionRepository).revokeBoundTo(id, at);
        await tx.repo(leaseRepository).release({ proxyId: id }, "its agent proxy was deleted");
        await w.agentProxies.delete({ id });
      }),

    /**
     * Gives a proxy a new enrollment token in place of any earlier one (used or not), in one
     * transaction. The proxy's row stays locked meanwhile, so concurrent reissues leave one token.
     */
    replaceEnrollmentToken: (token: EnrollmentTokenRow): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        await lockProxy(tx, token.proxyId);
        const w = tablesOf(tx.storage, agentVaultTables);
        await w.agentProxyEnrollmentTokens.delete({ proxyId: token.proxyId });
        await w.agentProxyEnrollmentTokens.insert(token);
      }),

    enrollmentTokenByHash: (tokenHash: string): Promise<EnrollmentTokenRow | undefined> => t.agentProxyEnrollmentTokens.findOne({ tokenHash }),

    /**
     * Uses an enrollment token up: the proxy it enrolls, or undefined when the token is used or
     * lapsed, or its proxy is gone. The conditional update is the one place a race is decided: of
     * concurrent enrollments with the same token exactly one sees a matched row.
     */
    consumeEnrollmentToken: (token: Pick<EnrollmentTokenRow, "id" | "proxyId">, at: string): Promise<ProxyRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, agentVaultTables);
        const matched = await w.agentProxyEnrollmentTokens.update({ id: token.id, usedAt: null, expiresAt: { gt: at } }, { usedAt: at });
        return matched === 1 ? w.agentProxies.get(token.proxyId) : undefined;
      }),

    /** Enrollment tokens that expired before `cutoff`. */
    purgeEnrollmentTokensLapsedBefore: async (cutoff: string): Promise<void> => {
      await t.agentProxyEnrollmentTokens.delete({ expiresAt: { lt: cutoff } });
    },
  };
});
