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
    /** Uses the token allows (universal auth's accessTokenNumUsesLimit when issued); 0: no limit. */
    numUsesLimit: integer().at(3),
  },
  { unique: [["tokenHash"]], indexes: [["actorType", "actorId"], ["expiresAt"]] },
);

/**
 * Uses so far of each token with a use limit (`id` is the token's). Apart from access_tokens so
 * that counting a use, one write per request, does not drop the access caches.
 */
export const accessTokenUses = defineTable("access_token_uses", { id: text(), numUses: integer() }, { since: 3 });

/**
 * Failed password logins per (account, client address) in the current window; `id` is a hash of
 * the normalized e-mail and the address, so unknown e-mails are counted the same as known ones.
 */
export const loginFailures = defineTable(
  "login_failures",
  { id: text(), failures: integer(), windowStartedAt: timestamp() },
  { indexes: [["windowStartedAt"]], since: 3 },
);

export const tenancyTables = { organizations, users, universalAuths, clientSecrets, accessTokens, accessTokenUses, loginFailures };

export type OrganizationRow = RowOf<typeof organizations>;
export type UserRow = RowOf<typeof users>;
export type UniversalAuthRow = RowOf<typeof universalAuths>;
export type ClientSecretRow = RowOf<typeof clientSecrets>;
export type AccessTokenRow = RowOf<typeof accessTokens>;
export type LoginFailureRow = RowOf<typeof loginFailures>;
