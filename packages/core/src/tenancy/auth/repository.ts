import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { UniqueViolationError } from "../../kernel/errors.js";
import { tenancyTables, type AccessTokenRow, type ClientSecretRow, type UniversalAuthRow } from "../tables.js";
import { clientAttempt, passwordAttempt, type ClientLockoutPolicy, type PasswordFailures, type PasswordLockoutPolicy, type Verdict } from "./lockout.js";


/** Tokens, and the universal-auth logins that earn them. */
export const authRepository = defineRepository("auth", (ctx) => {
  const t = tablesOf(ctx.storage, tenancyTables);
  return {
    insertToken: (row: AccessTokenRow): Promise<void> => t.accessTokens.insert(row),
    tokenByHash: (tokenHash: string): Promise<AccessTokenRow | undefined> => t.accessTokens.findOne({ tokenHash }),
    tokenById: (id: string): Promise<AccessTokenRow | undefined> => t.accessTokens.get(id),
    /** Revokes a live token by hash; how many it revoked (0 or 1). */
    revokeToken: (tokenHash: string, at: string): Promise<number> => t.accessTokens.update({ tokenHash, revokedAt: null }, { revokedAt: at }),
    /** Sets a live token's expiry; a revoked token is left as it is. Whether it was live. */
    extendToken: async (id: string, expiresAt: string): Promise<boolean> => (await t.accessTokens.update({ id, revokedAt: null }, { expiresAt })) > 0,
    revokeTokensOf: (actorType: string, actorId: string, at: string): Promise<number> =>
      t.accessTokens.update({ actorType, actorId, revokedAt: null }, { revokedAt: at }),
    /** Tokens that expired, or were revoked, before `cutoff`. */
    async purgeTokensLapsedBefore(cutoff: string): Promise<void> {
      const lapsed = { $or: [{ expiresAt: { lt: cutoff } }, { revokedAt: { lt: cutoff } }] };
      const counted = await t.accessTokens.find({ ...lapsed, numUsesLimit: { gt: 0 } });
      for (let i = 0; i < counted.length; i += 500) await t.accessTokenUses.delete({ id: { in: counted.slice(i, i + 500).map((row) => row.id) } });
      await t.accessTokens.delete({ expiresAt: { lt: cutoff } });
      await t.accessTokens.delete({ revokedAt: { lt: cutoff } });
    },
    universalAuthOf: (identityId: string): Promise<UniversalAuthRow | undefined> => t.universalAuths.findOne({ identityId }),
    universalAuthByClientId: (clientId: string): Promise<UniversalAuthRow | undefined> => t.universalAuths.findOne({ clientId }),
    clientSecret: (identityId: string, secretHash: string): Promise<ClientSecretRow | undefined> =>
      t.clientSecrets.findOne({ identityId, secretHash }),

    /**
     * Judges a universal-auth attempt under a lock on the client id's row (lockout.ts): while
     * the id is locked every attempt is refused alike, and concurrent failures on several nodes
     * are counted one at a time, so no more than `maxFailures` guesses are ever judged.
     */
    settleClientAttempt: (authId: string, correct: boolean, now: Date, policy: ClientLockoutPolicy): Promise<Verdict<unknown>> =>
      ctx.withTransaction(async (tx) => {
        const table = tablesOf(tx.storage, tenancyTables).universalAuths;
        const [auth] = await table.find({ id: authId }, { forUpdate: true });
        if (!auth) return { outcome: "failed", next: null };
        const verdict = clientAttempt(auth, correct, now, policy);
        if (verdict.outcome !== "locked" && verdict.next) await table.update({ id: authId }, verdict.next);
        return verdict;
      }),

    /** The failures of one (account, client address) pair, read without a lock (a cheap early refusal). */
    passwordFailures: (key: string): Promise<PasswordFailures | undefined> => t.loginFailures.get(key),

    /**
     * Judges a password attempt of one (account, client address) pair under a lock on its row,
     * as settleClientAttempt does. Two first failures racing to create the row: the loser tries
     * again and finds it.
     */
    async settlePasswordAttempt(key: string, correct: boolean, now: Date, policy: PasswordLockoutPolicy): Promise<Verdict<PasswordFailures>> {
      for (let attempt = 0; ; attempt++) {
        try {
          return await ctx.withTransaction(async (tx) => {
            const table = tablesOf(tx.storage, tenancyTables).loginFailures;
            const [row] = await table.find({ id: key }, { forUpdate: true });
            const verdict = passwordAttempt(row, correct, now, policy);
            if (verdict.outcome === "locked") return verdict;
            if (verdict.next === null) {
              if (row) await table.delete({ id: key });
            } else if (row) await table.update({ id: key }, verdict.next);
            else await table.insert({ id: key, ...verdict.next });
            return verdict;
          });
        } catch (error) {
          if (!(error instanceof UniqueViolationError) || attempt >= 2) throw error;
        }
      }
    },

    /** Password failure windows that ended before `cutoff`. */
    purgePasswordFailuresBefore: async (cutoff: string): Promise<void> => {
      await t.loginFailures.delete({ windowStartedAt: { lt: cutoff } });
    },

    /** The identity's universal-auth accessTokenTrustedIps; empty without universal auth. */
    accessTokenTrustedIpsOf: async (identityId: string): Promise<readonly { ipAddress: string }[]> =>
      (await t.universalAuths.findOne({ identityId }))?.accessTokenTrustedIps ?? [],

    insertTokenUses: (tokenId: string): Promise<void> => t.accessTokenUses.insert({ id: tokenId, numUses: 0 }),

    /**
     * Counts one use of a token with a use limit, by a conditional update on the count it read:
     * a lost race reads again, so concurrent uses on several nodes never exceed `limit`. False
     * when no use is left (or the counter is gone).
     */
    async useToken(tokenId: string, limit: number): Promise<boolean> {
      for (;;) {
        const row = await t.accessTokenUses.get(tokenId);
        if (!row || row.numUses >= limit) return false;
        if ((await t.accessTokenUses.update({ id: tokenId, numUses: row.numUses }, { numUses: row.numUses + 1 })) > 0) return true;
      }
    },

    /**
     * Counts one use of a client secret, by a conditional update on the count it was read with:
     * of concurrent logins with the same count exactly one gets true, so a use limit is never overspent.
     */
    consumeClientSecret: async (secret: ClientSecretRow, now: Date): Promise<boolean> =>
      (await t.clientSecrets.update({ id: secret.id, numUses: secret.numUses }, { numUses: secret.numUses + 1, updatedAt: now.toISOString() })) > 0,
  };
});
