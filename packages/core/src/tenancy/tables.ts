import { boolean, defineTable, integer, json, text, timestamp, type RowOf } from "../storage/columns.js";

/** Organizations, users and the credentials principals log in with. */

export const organizations = defineTable(
  "organizations",
  { id: text(), name: text(), slug: text(), createdAt: timestamp(), updatedAt: timestamp() },
  { unique: [["slug"]] },
);

export const users = defineTable(
  "users",
  {
    id: text(),
    email: text(),
    username: text(),
    passwordHash: text(),
    firstName: text(),
    lastName: text(),
    isEmailVerified: boolean(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["email"], ["username"]] },
);

export const universalAuths = defineTable(
  "universal_auths",
  {
    id: text(),
    identityId: text(),
    clientId: text(),
    accessTokenTTL: integer(),
    accessTokenMaxTTL: integer(),
    accessTokenNumUsesLimit: integer(),
    clientSecretTrustedIps: json<{ ipAddress: string }[]>(),
    accessTokenTrustedIps: json<{ ipAddress: string }[]>(),
    failedLogins: integer(),
    lockedUntil: timestamp().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["identityId"], ["clientId"]] },
);

/** Client secrets are kept only as SHA-256 hashes; `prefix` is the first characters, for display. */
export const clientSecrets = defineTable(
  "client_secrets",
  {
    id: text(),
    identityId: text(),
    secretHash: text(),
    prefix: text(),
    description: text(),
    ttl: integer(),
    numUses: integer(),
    numUsesLimit: integer(),
    isRevoked: boolean(),
    expiresAt: timestamp().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["secretHash"]], indexes: [["identityId"]] },
);

/** Bearer tokens of every kind, stored as SHA-256 hashes. `actorType`: user, identity, agent-proxy. */
export const accessTokens = defineTable(
  "access_tokens",
  {
    id: text(),
    tokenHash: text(),
    actorType: text(),
    actorId: text(),
    orgId: text().null(),
    expiresAt: timestamp(),
    revokedAt: timestamp().null(),
    lastUsedAt: timestamp().null(),
    createdAt: timestamp(),
  },
  { unique: [["tokenHash"]], indexes: [["actorType", "actorId"], ["expiresAt"]] },
);

export const tenancyTables = { organizations, users, universalAuths, clientSecrets, accessTokens };

export type OrganizationRow = RowOf<typeof organizations>;
export type UserRow = RowOf<typeof users>;
export type UniversalAuthRow = RowOf<typeof universalAuths>;
export type ClientSecretRow = RowOf<typeof clientSecrets>;
export type AccessTokenRow = RowOf<typeof accessTokens>;
