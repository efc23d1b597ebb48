import { defineTable, integer, json, text, timestamp, type RowOf } from "../storage/columns.js";

/** Dynamic secrets and their leases arrived with schema version 3. */
const SINCE = 3;

export interface MetadataEntry {
  key: string;
  value: string;
}

/**
 * A dynamic secret: a provider's root inputs in one secret folder. The inputs (root credentials)
 * are sealed under a data key of the project, recorded in `sealedWith` so a rewrap finds them.
 * `deletedAt` marks one whose folder or environment went away while it still had leases: the
 * expiry job revokes those, then removes it.
 */
export const dynamicSecrets = defineTable(
  "dynamic_secrets",
  {
    id: text(),
    orgId: text(),
    projectId: text(),
    envId: text(),
    folderId: text(),
    name: text(),
    type: text(),
    /** Durations as given (`1h`): answers show them as they were written. */
    defaultTtl: text(),
    maxTtl: text().null(),
    sealedInputs: text(),
    sealedWith: text(),
    metadata: json<MetadataEntry[]>(),
    version: integer(),
    deletedAt: timestamp().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["folderId", "name"]], indexes: [["projectId"], ["envId"], ["sealedWith"], ["deletedAt"]], since: SINCE },
);

/**
 * A lease: one user at the provider. `status` is `active`, `revoking` (a revocation failed and is
 * retried at `nextAttemptAt`, or the lease's secret went away) or `revoked` (kept, with the
 * outcome in `statusDetails`). `claimedUntil` marks a revocation in flight, so two never run for
 * one lease. Leases an agent proxy uses are held by the server for one proxy and one proxied service
 * (`holderProxyId`, `holderServiceId`; the service's credentials naming the same dynamic secret
 * share the lease, so a user and its password match) and keep their credentials sealed in
 * `sealedData`; others never store them.
 */
export const dynamicSecretLeases = defineTable(
  "dynamic_secret_leases",
  {
    id: text(),
    orgId: text(),
    projectId: text(),
    dynamicSecretId: text(),
    externalEntityId: text(),
    status: text(),
    statusDetails: text().null(),
    version: integer(),
    expiresAt: timestamp(),
    revokeAttempts: integer(),
    nextAttemptAt: timestamp().null(),
    claimedUntil: timestamp().null(),
    revokedAt: timestamp().null(),
    holderProxyId: text().null(),
    holderServiceId: text().null(),
    sealedData: text().null(),
    sealedWith: text().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  {
    indexes: [["dynamicSecretId", "status"], ["status", "expiresAt"], ["status", "nextAttemptAt"], ["holderServiceId", "holderProxyId"], ["holderProxyId"], ["projectId"]],
    since: SINCE,
  },
);

export const dynamicSecretTables = { dynamicSecrets, dynamicSecretLeases };

export type DynamicSecretRow = RowOf<typeof dynamicSecrets>;
export type LeaseRow = RowOf<typeof dynamicSecretLeases>;

export type LeaseStatus = "active" | "revoking" | "revoked";
