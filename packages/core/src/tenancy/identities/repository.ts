import type { OrgRole } from "../../access/org-access.js";
import { accessTables, type IdentityRow } from "../../access/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";
import { tenancyTables, type ClientSecretRow, type UniversalAuthRow } from "../tables.js";

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
