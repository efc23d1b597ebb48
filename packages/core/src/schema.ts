import { accessTables } from "./access/tables.js";
import { agentVaultTables } from "./agent-vault/tables.js";
import { auditTables } from "./audit/tables.js";
import { certificateTables } from "./cert-manager/tables.js";
import { keyTables } from "./crypto/tables.js";
import { dynamicSecretTables } from "./dynamic-secrets/tables.js";
import { kmsTables } from "./kms/tables.js";
import { jobTables } from "./jobs/tables.js";
import { secretTables } from "./secret-manager/tables.js";
import { schemaVersion, type RowOf } from "./storage/columns.js";
import { createMemoryStore } from "./storage/memory.js";
import type { Storage } from "./storage/table.js";
import { tenancyTables } from "./tenancy/tables.js";

/**
 * Every table Strongroom stores, assembled from the areas that declare them. Adding a table or
 * column: declare it in its area with `.at(n)` / `since: n` set to the next schema version; the
 * adapters migrate existing databases on open.
 */
export const strongroomSchema = {
  organizations: tenancyTables.organizations,
  users: tenancyTables.users,
  orgMemberships: accessTables.orgMemberships,
  identities: accessTables.identities,
  universalAuths: tenancyTables.universalAuths,
  clientSecrets: tenancyTables.clientSecrets,
  accessTokens: tenancyTables.accessTokens,
  accessTokenUses: tenancyTables.accessTokenUses,
  loginFailures: tenancyTables.loginFailures,
  projects: accessTables.projects,
  environments: accessTables.environments,
  projectMemberships: accessTables.projectMemberships,
  membershipRoles: accessTables.membershipRoles,
  projectRoles: accessTables.projectRoles,
  identityPrivileges: accessTables.identityPrivileges,
  kmsKeys: keyTables.kmsKeys,
  instanceMeta: keyTables.instanceMeta,
  dataKeyRotations: keyTables.dataKeyRotations,
  jobLeases: jobTables.jobLeases,
  jobRuns: jobTables.jobRuns,
  ...secretTables,
  ...agentVaultTables,
  ...certificateTables,
  ...kmsTables,
  ...dynamicSecretTables,
  ...auditTables,
};

export type StrongroomSchema = typeof strongroomSchema;

/** The same tables grouped by the area that declares them (for tools and tests that look at one area). */
export const tablesByArea = {
  tenancy: tenancyTables,
  access: accessTables,
  keys: keyTables,
  jobs: jobTables,
  secretManager: secretTables,
  agentVault: agentVaultTables,
  certManager: certificateTables,
  kms: kmsTables,
  dynamicSecrets: dynamicSecretTables,
  audit: auditTables,
};
export type TableName = keyof StrongroomSchema;
/** A row of one of Strongroom's tables. */
export type Row<N extends TableName> = RowOf<StrongroomSchema[N]>;

/** The schema version a fully migrated Strongroom database is at. */
export const SCHEMA_VERSION = schemaVersion(strongroomSchema);

/** A storage holding Strongroom's tables: what `createStrongroom` takes. */
export type StrongroomStorage = Storage<StrongroomSchema>;

/** An in-memory store of Strongroom's tables: for unit tests and short-lived embedded use. */
export const createMemoryStorage = (): StrongroomStorage => createMemoryStore(strongroomSchema);
