import { boolean, defineTable, integer, json, text, timestamp, type RowOf } from "../storage/columns.js";

/**
 * The tables access decisions are read from: who belongs to which organization and project, with
 * which roles and privileges, and the projects and environments themselves. Tenancy and the
 * secret manager write them (through their repositories); access only reads.
 */

/** Columns of a grant that may be temporary (membership roles, identity privileges). */
export const temporaryGrantColumns = () => ({
  isTemporary: boolean(),
  temporaryMode: text().null(),
  temporaryRange: text().null(),
  temporaryAccessStartTime: timestamp().null(),
  temporaryAccessEndTime: timestamp().null(),
});

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

export const accessTables = {
  orgMemberships,
  identities,
  projects,
  environments,
  projectMemberships,
  membershipRoles,
  projectRoles,
  identityPrivileges,
};

export type OrgMembershipRow = RowOf<typeof orgMemberships>;
export type IdentityRow = RowOf<typeof identities>;
export type ProjectRow = RowOf<typeof projects>;
export type EnvironmentRow = RowOf<typeof environments>;
export type MembershipRow = RowOf<typeof projectMemberships>;
export type MembershipRoleRow = RowOf<typeof membershipRoles>;
export type CustomRoleRow = RowOf<typeof projectRoles>;
export type PrivilegeRow = RowOf<typeof identityPrivileges>;
/** A row of one of access's tables, by key. */
export type AccessRow<N extends keyof typeof accessTables> = RowOf<(typeof accessTables)[N]>;

/**
 * Tables whose writes change who may do what, or which token stands for whom (tenancy's
 * `accessTokens` included): the assembly drops the access caches whenever one of them changes.
 */
export const ACCESS_DECIDING_TABLES = [
  "accessTokens",
  "orgMemberships",
  "identities",
  "projects",
  "environments",
  "projectMemberships",
  "membershipRoles",
  "projectRoles",
  "identityPrivileges",
] as const;
