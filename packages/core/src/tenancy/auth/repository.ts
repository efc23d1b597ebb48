import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { tenancyTables, type AccessTokenRow, type ClientSecretRow, type UniversalAuthRow } from "../tables.js";

/** How many failed logins lock a client id, and for how long. */
export interface LockoutPolicy {
  readonly maxFailures: number;
  readonly lockSeconds: number;
}

/** Tokens, and the universal-auth logins that earn them. */
export const authRepository = defineRepository("auth", (ctx) => {
  const t = tablesOf(ctx.storage, tenancyTables);
  return {
    insertToken: (row: AccessTokenRow): Promise<void> => t.accessTokens.insert(row),
    tokenByHash: (tokenHash: string): Promise<AccessTokenRow | undefined> => t.accessTokens.findOne({ tokenHash }),
    tokenById: (id: string): Promise<AccessTokenRow | undefined> => t.accessTokens.get(id),
    /** Revokes a live token by hash; how many it revoked (0 or 1). */
    revokeToken: (tokenHash: string, at: string): Promise<number> => t.accessTokens.update({ tokenHash, revokedAt: null }, { revokedAt: at }),
    /** Sets a live token's expiry; a revoked token is left as it is. */
    extendToken: async (id: string, expiresAt: string): Promise<void> => {
      await t.accessTokens.update({ id, revokedAt: null }, { expiresAt });
    },
    revokeTokensOf: (actorType: string, actorId: string, at: string): Promise<number> =>
      t.accessTokens.update({ actorType, actorId, revokedAt: null }, { revokedAt: at }),
    /** Tokens that expired, or were revoked, before `cutoff`. */
    async purgeTokensLapsedBefore(cutoff: string): Promise<void> {
      await t.accessTokens.delete({ expiresAt: { lt: cutoff } });
      await t.accessTokens.delete({ revokedAt: { lt: cutoff } });
    },
    universalAuthByClientId: (clientId: string): Promise<UniversalAuthRow | undefined> => t.universalAuths.findOne({ clientId }),
    clientSecret: (identityId: string, secretHash: string): Promise<ClientSecretRow | undefined> =>
      t.clientSecrets.findOne({ identityId, secretHash }),

    /**
     * Counts a failed login of a client id; the failure that reaches `maxFailures` locks it for
     * `lockSeconds` and starts the count again. The row is locked while counting, so concurrent
     * failures on several nodes are all counted.
     */
    recordFailedLogin: (authId: string, now: Date, policy: LockoutPolicy): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        const table = tablesOf(tx.storage, tenancyTables).universalAuths;
        const [auth] = await table.find({ id: authId }, { forUpdate: true });
        if (!auth) return;
        const failures = auth.failedLogins + 1;
        await table.update(
          { id: authId },
          failures >= policy.maxFailures
            ? { failedLogins: 0, lockedUntil: new Date(now.getTime() + policy.lockSeconds * 1000).toISOString() }
            : { failedLogins: failures },
        );
      }),

    /** A successful login starts the failure count again. */
    clearFailedLogins: async (authId: string): Promise<void> => {
      await t.universalAuths.update({ id: authId, failedLogins: { ne: 0 } }, { failedLogins: 0 });
    },

    /**
     * Counts one use of a client secret, by a conditional update on the count it was read with:
     * of concurrent logins with the same count exactly one gets true, so a use limit is never overspent.
     */
    consumeClientSecret: async (secret: ClientSecretRow, now: Date): Promise<boolean> =>
      (await t.clientSecrets.update({ id: secret.id, numUses: secret.numUses }, { numUses: secret.numUses + 1, updatedAt: now.toISOString() })) > 0,
  };
});
