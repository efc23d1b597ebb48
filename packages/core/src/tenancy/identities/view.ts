import type { OrgRole } from "../../access/org-access.js";
import type { IdentityRow } from "../../access/tables.js";
import type { ClientSecretRow, UniversalAuthRow } from "../tables.js";

/** An identity as every answer shows it; `authMethods` are its login methods, by Infisical's names. */
export const toIdentity = (i: IdentityRow, authMethods: string[]) => ({
  id: i.id,
  name: i.name,
  orgId: i.orgId,
  role: i.role as OrgRole,
  authMethods,
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
});

export const toUniversalAuth = (u: UniversalAuthRow) => ({
  id: u.id,
  clientId: u.clientId,
  identityId: u.identityId,
  accessTokenTTL: u.accessTokenTTL,
  accessTokenMaxTTL: u.accessTokenMaxTTL,
  accessTokenNumUsesLimit: u.accessTokenNumUsesLimit,
  clientSecretTrustedIps: u.clientSecretTrustedIps,
  accessTokenTrustedIps: u.accessTokenTrustedIps,
  createdAt: u.createdAt,
  updatedAt: u.updatedAt,
});

export const toClientSecretData = (s: ClientSecretRow, identityUAId: string) => ({
  id: s.id,
  description: s.description,
  clientSecretPrefix: s.prefix,
  clientSecretNumUses: s.numUses,
  clientSecretNumUsesLimit: s.numUsesLimit,
  clientSecretTTL: s.ttl,
  identityUAId,
  isClientSecretRevoked: s.isRevoked,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});
