import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { tenancyTables, type ClientSecretRow, type UniversalAuthRow } from "../tables.js";

/** Universal auth's settings an admin may change after attaching it. */
export type UniversalAuthSettings = Partial<
  Pick<UniversalAuthRow, "accessTokenTTL" | "accessTokenMaxTTL" | "accessTokenNumUsesLimit" | "clientSecretTrustedIps" | "accessTokenTrustedIps">
>;

/** An identity's universal auth after it is attached: settings, revocation, and its client secrets. */
export const universalAuthRepository = defineRepository("universal-auth", (ctx) => {
  const t = tablesOf(ctx.storage, tenancyTables);
  return {
    /**
     * Changes the settings by `decide(current)` — which checks them against the stored row and
     * returns the changes — with the row locked, so two updates never combine into settings
     * neither asked for. Undefined when universal auth is not attached.
     */
    update: (identityId: string, decide: (current: UniversalAuthRow) => UniversalAuthSettings): Promise<UniversalAuthRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tenancyTables);
        const [current] = await w.universalAuths.find({ identityId }, { forUpdate: true });
        if (!current) return undefined;
        await w.universalAuths.update({ id: current.id }, { ...decide(current), updatedAt: tx.clock.now().toISOString() });
        return w.universalAuths.get(current.id);
      }),

    /**
     * Takes universal auth off an identity, in one transaction: its settings, its client secrets,
     * and every token of the identity (universal auth is how identities log in). The row as it was;
     * undefined when none was attached.
     */
    revoke: (identityId: string): Promise<UniversalAuthRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tenancyTables);
        const [current] = await w.universalAuths.find({ identityId }, { forUpdate: true });
        if (!current) return undefined;
        await w.clientSecrets.delete({ identityId });
        await w.universalAuths.delete({ id: current.id });
        await w.accessTokens.update({ actorType: "identity", actorId: identityId, revokedAt: null }, { revokedAt: tx.clock.now().toISOString() });
        return current;
      }),

    /** The identity's client secrets that are not revoked, newest first. */
    activeClientSecrets: (identityId: string): Promise<ClientSecretRow[]> =>
      t.clientSecrets.find({ identityId, isRevoked: false }, { orderBy: [["createdAt", "desc"], ["id", "asc"]] }),

    clientSecret: (identityId: string, id: string): Promise<ClientSecretRow | undefined> => t.clientSecrets.findOne({ id, identityId }),

    /** Revokes a client secret; the row as it now is. */
    async revokeClientSecret(identityId: string, id: string): Promise<ClientSecretRow | undefined> {
      await t.clientSecrets.update({ id, identityId, isRevoked: false }, { isRevoked: true, updatedAt: ctx.clock.now().toISOString() });
      return t.clientSecrets.findOne({ id, identityId });
    },
  };
});
