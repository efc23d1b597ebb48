import { agentProxyTables } from "../agent-vault/tables.js";
import { certificateTables } from "../cert-manager/tables.js";
import { secretTables } from "../secret-manager/tables.js";
import { boolean, defineTable, integer, json, text, timestamp, type RowOf } from "./columns.js";

/**
 * Every table Strongroom stores. Adding a table or column: declare it here with `.at(n)` /
 * `since: n` set to the next schema version; the adapters migrate existing databases on open.
 */

/** Columns of a grant that may be temporary (membership roles, identity privileges). */
const temporaryGrantColumns = () => ({
  isTemporary: boolean(),
  temporaryMode: text().null(),
  temporaryRange: text().null(),
  temporaryAccessStartTime: timestamp().null(),
  temporaryAccessEndTime: timestamp().null(),
});

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

/** A user's place in an organization. Organization roles: admin, member, no-access. */
export const orgMemberships = defineTable(
  "org_memberships",
  { id: text(), orgId: text(), userId: text(), role: text(), createdAt: timestamp(), updatedAt: timestamp() },
  { unique: [["orgId", "userId"]], indexes: [["userId"]] },
);

/** Machine identities belong to exactly one organization. */
export const identities = defineTable(
  "identities",
  { id: text(), orgId: text(), name: text(), role: text(), createdAt: timestamp(), updatedAt: timestamp() },
  { indexes: [["orgId"]] },
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

export const projects = defineTable(
  "projects",
  {
    id: text(),
    orgId: text(),
    name: text(),
    slug: text(),
    type: text(),
    description: text(),
    defaultProduct: text(),
    upgradeStatus: text().null(),
    template: text(),
    kmsCertificateKeyId: text(),
    kmsSecretManagerKeyId: text(),
    autoCapitalization: boolean(),
    hasDeleteProtection: boolean(),
    secretSharing: boolean(),
    showSnapshotsLegacy: boolean(),
    enforceEncryptedSecretManagerSecretMetadata: boolean(),
    secretBlindIndexEnabled: boolean(),
    isLegacyAdditionalPrivilegesEnabled: boolean(),
    version: integer(),
    pitVersionLimit: integer(),
    auditLogsRetentionDays: integer(),
    secretDetectionIgnoreValues: json<string[]>(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["orgId", "slug"]] },
);

export const environments = defineTable(
  "environments",
  {
    id: text(),
    projectId: text(),
    name: text(),
    slug: text(),
    position: integer(),
    deletedAt: timestamp().null(),
    deleteAfter: timestamp().null(),
    deletedBy: json<Record<string, string>>().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { indexes: [["projectId"]] },
);

/** A user's or a machine identity's membership of a project; exactly one of userId / identityId is set. */
export const projectMemberships = defineTable(
  "project_memberships",
  {
    id: text(),
    projectId: text(),
    userId: text().null(),
    identityId: text().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectId", "userId"], ["projectId", "identityId"]], indexes: [["identityId"], ["userId"]] },
);

export const membershipRoles = defineTable(
  "membership_roles",
  {
    id: text(),
    membershipId: text(),
    role: text(),
    customRoleId: text().null(),
    ...temporaryGrantColumns(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { indexes: [["membershipId"]] },
);

/** Custom project roles; built-in roles are not stored. */
export const projectRoles = defineTable(
  "project_roles",
  {
    id: text(),
    projectId: text(),
    slug: text(),
    name: text(),
    description: text(),
    permissions: json<unknown[]>(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectId", "slug"]] },
);

export const identityPrivileges = defineTable(
  "identity_privileges",
  {
    id: text(),
    projectMembershipId: text(),
    identityId: text(),
    projectId: text(),
    slug: text(),
    permissions: json<unknown[]>(),
    ...temporaryGrantColumns(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectMembershipId", "slug"]], indexes: [["identityId", "projectId"]] },
);

/** Data keys, each wrapped (AES-256-GCM) by the root key. */
export const kmsKeys = defineTable(
  "kms_keys",
  {
    id: text(),
    orgId: text().null(),
    projectId: text().null(),
    purpose: text(),
    wrappedKey: text(),
    createdAt: timestamp(),
  },
  { indexes: [["projectId"], ["orgId"]] },
);

/** One row per instance: proves at start-up that the configured root key is the one that wrapped the data keys. */
export const instanceMeta = defineTable("instance_meta", {
  id: text(),
  rootKeyCheck: text(),
  createdAt: timestamp(),
});

/** Scheduled-job leases: whoever holds an unexpired lease runs the job; see `jobs/lease.ts`. */
export const jobLeases = defineTable("job_leases", {
  id: text(),
  holder: text(),
  expiresAt: timestamp(),
  lastRunAt: timestamp().null(),
});

/** One row per scheduled-job run, written by the node that claimed the period. */
export const jobRuns = defineTable(
  "job_runs",
  {
    id: text(),
    job: text(),
    holder: text(),
    startedAt: timestamp(),
    finishedAt: timestamp().null(),
    error: text().null(),
  },
  { indexes: [["job", "startedAt"]] },
);

export const schema = {
  organizations,
  users,
  orgMemberships,
  identities,
  universalAuths,
  clientSecrets,
  accessTokens,
  projects,
  environments,
  projectMemberships,
  membershipRoles,
  projectRoles,
  identityPrivileges,
  kmsKeys,
  instanceMeta,
  jobLeases,
  jobRuns,
  ...secretTables,
  ...agentProxyTables,
  ...certificateTables,
};

export type Tables = typeof schema;
export type TableName = keyof Tables;
export type Row<N extends TableName> = RowOf<Tables[N]>;

/** The schema version a fully migrated database is at. */
export const SCHEMA_VERSION = Math.max(
  ...Object.values(schema).flatMap((t) => [t.since, ...Object.values(t.columns).map((c) => c.since)]),
);
