import { boolean, defineTable, integer, json, text, timestamp, type RowOf } from "../storage/columns.js";

/**
 * Tables of the agent-proxy control plane; spread into schema.ts. Enrollment and session
 * tokens are kept only as SHA-256 hashes (DESIGN.md §3). Every row carries the organization it
 * belongs to, so no lookup can cross an organization boundary by id alone.
 */

/** A registered agent proxy. `heartbeat` is its last check-in; the root CA fields are set at enrollment. */
export const agentProxies = defineTable(
  "agent_proxies",
  {
    id: text(),
    orgId: text(),
    name: text(),
    trafficPolicy: text(),
    allowedHosts: text().null(),
    pollInterval: integer(),
    heartbeat: timestamp().null(),
    rootCaFingerprint: text().null(),
    rootCaExpiresAt: timestamp().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { indexes: [["orgId"]] },
);

/** At most one per proxy: issuing a new token deletes the previous row. `usedAt` marks the one use. */
export const agentProxyEnrollmentTokens = defineTable(
  "agent_proxy_enrollment_tokens",
  {
    id: text(),
    proxyId: text(),
    tokenHash: text(),
    expiresAt: timestamp(),
    usedAt: timestamp().null(),
    createdAt: timestamp(),
  },
  { unique: [["tokenHash"]], indexes: [["proxyId"]] },
);

/** Who an access bundle is granted to. */
export interface BundleGrant {
  type: "user" | "identity";
  id: string;
}

/**
 * A named set of proxied services of one project, granted to users and machine identities. Both
 * sets are small and always read whole with the bundle, so they live in the row.
 */
export const agentAccessBundles = defineTable(
  "agent_access_bundles",
  {
    id: text(),
    orgId: text(),
    projectId: text(),
    name: text(),
    description: text(),
    serviceIds: json<string[]>(),
    grants: json<BundleGrant[]>(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectId", "name"]], indexes: [["orgId"]] },
);

/** An agent's session: what its token lets it reach through a proxy (any of the org's, or `proxyId`'s only). */
export const agentSessions = defineTable(
  "agent_sessions",
  {
    id: text(),
    orgId: text(),
    bundleId: text(),
    proxyId: text().null(),
    principalType: text(),
    principalId: text(),
    tokenHash: text(),
    expiresAt: timestamp(),
    revokedAt: timestamp().null(),
    createdAt: timestamp(),
  },
  { unique: [["tokenHash"]], indexes: [["orgId", "expiresAt"], ["bundleId"]] },
);

/**
 * A host pattern mapped to credentials, living in one secret folder (`folderId` is `envId` at the
 * root). `position` is the definition order across the organization, which decides among equally
 * specific host matches; timestamps can tie.
 */
export const proxiedServices = defineTable(
  "proxied_services",
  {
    id: text(),
    orgId: text(),
    projectId: text(),
    envId: text(),
    folderId: text(),
    position: integer(),
    name: text(),
    hostPattern: text(),
    isEnabled: boolean(),
    lastUsedAt: timestamp().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["folderId", "name"]], indexes: [["orgId", "position"], ["projectId"]] },
);

/** A service's credentials in definition order (`position`); replaced as a whole. */
export const proxiedServiceCredentials = defineTable(
  "proxied_service_credentials",
  {
    id: text(),
    serviceId: text(),
    position: integer(),
    role: text(),
    secretKey: text().null(),
    dynamicSecretName: text().null(),
    dynamicSecretField: text().null(),
    headerName: text().null(),
    headerPrefix: text().null(),
    headerPurpose: text().null(),
    placeholderKey: text().null(),
    placeholderValue: text().null(),
    substitutionSurfaces: json<string[]>(),
    createdAt: timestamp(),
  },
  { indexes: [["serviceId"]] },
);

export const agentVaultTables = {
  agentProxies,
  agentProxyEnrollmentTokens,
  agentAccessBundles,
  agentSessions,
  proxiedServices,
  proxiedServiceCredentials,
};

export type ProxyRow = RowOf<typeof agentProxies>;
export type EnrollmentTokenRow = RowOf<typeof agentProxyEnrollmentTokens>;
export type BundleRow = RowOf<typeof agentAccessBundles>;
export type SessionRow = RowOf<typeof agentSessions>;
export type ServiceRow = RowOf<typeof proxiedServices>;
export type CredentialRow = RowOf<typeof proxiedServiceCredentials>;
