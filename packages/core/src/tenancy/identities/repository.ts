import type { OrgRole } from "../../access/org-access.js";
import { accessTables, type IdentityRow } from "../../access/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";
import { membershipsRemoved, removedMembership } from "../hooks.js";
import { tenancyTables, type ClientSecretRow, type UniversalAuthRow } from "../tables.js";

/** The login methods an identity has, by Infisical's names (universal auth is the only one here). */
export type AuthMethod = "universal-auth";

/** Universal auth's settings as they are attached; the client id and the lockout state start fresh. */
export type NewUniversalAuth = Pick<
  UniversalAuthRow,
  "identityId" | "accessTokenTTL" | "accessTokenMaxTTL" | "accessTokenNumUsesLimit" | "clientSecretTrustedIps" | "accessTokenTrustedIps"
>;

/** A client secret as it is stored: its hash, never the secret. */
export type NewClientSecret = Pick<ClientSecretRow, "identityId" | "secretHash" | "prefix" | "description" | "ttl" | "numUsesLimit" | "expiresAt">;

/** Machine identities and the universal-auth credentials they log in with. */
export const identityRepository = defineRepository("identities", (ctx) => {
  const t = tablesOf(ctx.storage, tenancyTables);
  const access = tablesOf(ctx.storage, accessTables);
  const now = () => ctx.clock.now().toISOString();
  return {
    async create(identity: { orgId: string; name: string; role: OrgRole }): Promise<IdentityRow> {
      const at = now();
      const row: IdentityRow = { id: newId(), ...identity, createdAt: at, updatedAt: at };
      await access.identities.insert(row);
      return row;
    },

    byId: (id: string): Promise<IdentityRow | undefined> => access.identities.get(id),

    /** An organization's identities, by name. */
    inOrganization: (orgId: string): Promise<IdentityRow[]> => access.identities.find({ orgId }, { orderBy: [["name", "asc"], ["id", "asc"]] }),

    /** Each identity's login methods. */
    async authMethodsOf(identityIds: readonly string[]): Promise<Map<string, AuthMethod[]>> {
      const methods = new Map<string, AuthMethod[]>(identityIds.map((id) => [id, []]));
      if (identityIds.length === 0) return methods;
      for (const auth of await t.universalAuths.find({ identityId: { in: [...identityIds] } })) methods.get(auth.identityId)?.push("universal-auth");
      return methods;
    },

    /** The identity as changed. */
    async update(id: string, changes: Partial<Pick<IdentityRow, "name" | "role">>): Promise<IdentityRow> {
      await access.identities.update({ id }, { ...changes, updatedAt: now() });
      const row = await access.identities.get(id);
      if (!row) throw new Error(`identity ${id} vanished during its update`);
      return row;
    },

    /**
     * Deletes an identity with its universal auth, client secrets, project memberships (their
     * roles and privileges too) and tokens, in one transaction.
     */
    remove: (identity: IdentityRow): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tenancyTables);
        const a = tablesOf(tx.storage, accessTables);
        const at = tx.clock.now().toISOString();
        const memberships = await a.projectMemberships.find({ identityId: identity.id });
        if (memberships.length) await a.membershipRoles.delete({ membershipId: { in: memberships.map((m) => m.id) } });
        await a.identityPrivileges.delete({ identityId: identity.id });
        await a.projectMemberships.delete({ identityId: identity.id });
        if (memberships.length) await tx.emit(membershipsRemoved, { memberships: memberships.map(removedMembership), at });
        await w.clientSecrets.delete({ identityId: identity.id });
        await w.universalAuths.delete({ identityId: identity.id });
        await w.accessTokens.update({ actorType: "identity", actorId: identity.id, revokedAt: null }, { revokedAt: at });
        await a.identities.delete({ id: identity.id });
      }),

    universalAuthOf: (identityId: string): Promise<UniversalAuthRow | undefined> => t.universalAuths.findOne({ identityId }),

    async attachUniversalAuth(settings: NewUniversalAuth): Promise<UniversalAuthRow> {
      const at = now();
      const row: UniversalAuthRow = { id: newId(), clientId: newId(), ...settings, failedLogins: 0, lockedUntil: null, createdAt: at, updatedAt: at };
      await t.universalAuths.insert(row);
      return row;
    },

    async addClientSecret(secret: NewClientSecret, at: Date): Promise<ClientSecretRow> {
      const row: ClientSecretRow = { id: newId(), ...secret, numUses: 0, isRevoked: false, createdAt: at.toISOString(), updatedAt: at.toISOString() };
      await t.clientSecrets.insert(row);
      return row;
    },
  };
});
