import { boolean, defineTable, integer, json, text, timestamp, type RowOf } from "../storage/columns.js";
import type { ResolvedIssuance } from "../x509/resolved-issuance.js";
import type { ProfileDefaults } from "./schemas.js";

/** The schema version that brought revocation, renewal and CRLs. */
const REVOCATION = 3;
/** The schema version that dropped the certificate indexes no query needed on their own. */
const LEANER_CERTIFICATE_INDEXES = 5;

/** What a certificate was issued as, kept so that it can be renewed as it was (no key, nothing secret). */
export type StoredIssuance = Omit<ResolvedIssuance, "notBefore"> & {
  /** Issued for a CSR: renewing it needs a new CSR, as no key of it was ever here. */
  fromCsr: boolean;
};

/**
 * Tables of the certificate manager; spread into the assembled schema (src/schema.ts). Every row carries its
 * project, so a lookup by id is always checked against the project the caller may see. Private
 * keys and webhook signing secrets are stored only sealed under the project's certificate data key
 * (`kmsCertificateKeyId`), bound to their row's id.
 */

/** An internal root or intermediate CA. `certificateChain` is its issuers' PEMs, nearest first; "" for a root. */
export const certificateAuthorities = defineTable(
  "certificate_authorities",
  {
    id: text(),
    projectId: text(),
    name: text(),
    /** `root` or `intermediate`. */
    type: text(),
    status: text(),
    commonName: text(),
    keyAlgorithm: text(),
    certificatePem: text(),
    certificateChain: text(),
    serialNumber: text(),
    notBefore: timestamp(),
    notAfter: timestamp(),
    parentCaId: text().null(),
    sealedPrivateKey: text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectId", "name"]], indexes: [["projectId", "createdAt"]] },
);

export const certificateProfiles = defineTable(
  "certificate_profiles",
  {
    id: text(),
    projectId: text(),
    slug: text(),
    description: text(),
    issuerType: text(),
    caId: text().null(),
    enrollmentType: text(),
    defaults: json<ProfileDefaults>(),
    externalConfigs: json<{ template: string }>().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectId", "slug"]], indexes: [["caId"]] },
);

export interface StoredSan {
  type: string;
  value: string;
}

/**
 * Certificates Strongroom issued (`source: issued`) or found on the network (`discovered`), one
 * row per project and SHA-256 fingerprint. The private key of an issued certificate is never kept.
 */
export const certificates = defineTable(
  "certificates",
  {
    id: text(),
    projectId: text(),
    source: text(),
    caId: text().null(),
    profileId: text().null(),
    fingerprint: text(),
    serialNumber: text(),
    commonName: text().null(),
    subject: text(),
    issuer: text(),
    subjectAltNames: json<StoredSan[]>(),
    isCA: boolean(),
    keyAlgorithm: text().null(),
    notBefore: timestamp(),
    notAfter: timestamp(),
    certificatePem: text(),
    certificateChain: text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    /** Null for discovered certificates and those issued before renewal existed. */
    issuance: json<StoredIssuance>().null().at(REVOCATION),
    revokedAt: timestamp().null().at(REVOCATION),
    /** One of REVOCATION_REASONS (x509/crl.ts) once revoked. */
    revocationReason: text().null().at(REVOCATION),
    /** The certificate this one renewed. */
    renewedFromId: text().null().at(REVOCATION),
  },
  {
    unique: [["projectId", "fingerprint"]],
    indexes: [["projectId", "createdAt"], ["caId", "revokedAt"]],
    // Every insert wrote these too, and every query of them names the project, whose index serves
    // it: listing by profile (and unlinking a deleted profile's), the expiry alerts' scan.
    retiredIndexes: [
      { columns: ["notAfter"], at: LEANER_CERTIFICATE_INDEXES },
      { columns: ["profileId"], at: LEANER_CERTIFICATE_INDEXES },
    ],
  },
);

/**
 * The current CRL of each CA, re-signed when one of its certificates is revoked, when it comes
 * near `nextUpdate`, or when it lists fewer certificates than are revoked (a revocation whose
 * re-signing was interrupted). `number` is the cRLNumber, one higher at every re-signing.
 */
export const certificateRevocationLists = defineTable(
  "certificate_revocation_lists",
  {
    id: text(),
    projectId: text(),
    caId: text(),
    number: integer(),
    revokedCount: integer(),
    crlPem: text(),
    thisUpdate: timestamp(),
    nextUpdate: timestamp(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["caId"]], indexes: [["projectId"]], since: REVOCATION },
);

/** The normalised targetConfig (after targetConfigSchema), as the API returns it. */
export interface StoredTargetConfig {
  ipRanges: string[];
  domains: string[];
  ports: string;
}

export const discoveryJobs = defineTable(
  "cert_discovery_jobs",
  {
    id: text(),
    projectId: text(),
    name: text(),
    description: text(),
    discoveryType: text(),
    targetConfig: json<StoredTargetConfig>(),
    isAutoScanEnabled: boolean(),
    scanIntervalDays: integer(),
    gatewayId: text().null(),
    gatewayPoolId: text().null(),
    isActive: boolean(),
    lastScanStatus: text().null(),
    lastScanJobId: text().null(),
    lastScanMessage: text().null(),
    lastScannedAt: timestamp().null(),
    /** When the current scan was requested; a pending or running scan older than the stale bound may be replaced. */
    scanRequestedAt: timestamp().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectId", "name"]], indexes: [["isAutoScanEnabled"]] },
);

/** Where a TLS endpoint was seen, one row per project and location. `host` (IP or name) serves the search. */
export const certificateInstallations = defineTable(
  "cert_installations",
  {
    id: text(),
    projectId: text(),
    discoveryId: text().null(),
    locationType: text(),
    locationFingerprint: text(),
    /** The domain or IP literal that was scanned. */
    host: text(),
    /** The address dialled (for a domain, what it resolved to). */
    ipAddress: text().null(),
    port: integer(),
    name: text(),
    type: text(),
    primaryCertName: text(),
    discoveryName: text(),
    locationDetails: json<Record<string, unknown>>(),
    metadata: json<Record<string, unknown>>().null(),
    lastSeenAt: timestamp(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectId", "locationFingerprint"]], indexes: [["projectId", "createdAt"], ["discoveryId"]] },
);

/** The certificates a location presented at its latest scan (leaf first), replaced at every scan. */
export const installationCertificates = defineTable(
  "cert_installation_certificates",
  {
    id: text(),
    projectId: text(),
    installationId: text(),
    certificateId: text(),
    position: integer(),
    createdAt: timestamp(),
  },
  { unique: [["installationId", "certificateId"]], indexes: [["certificateId"]] },
);

export interface StoredAlertFilter {
  field: string;
  operator: string;
  value: string;
}

export const certificateAlerts = defineTable(
  "cert_alerts",
  {
    id: text(),
    projectId: text(),
    name: text(),
    description: text(),
    eventType: text(),
    alertBefore: text(),
    filters: json<StoredAlertFilter[]>(),
    enabled: boolean(),
    enableDailyNotification: boolean(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectId", "name"]], indexes: [["enabled"]] },
);

/** A channel's public config (`recipients`, or the webhook `url`); a webhook's signing secret is only in `sealedSecret`. */
export const certificateAlertChannels = defineTable(
  "cert_alert_channels",
  {
    id: text(),
    alertId: text(),
    projectId: text(),
    position: integer(),
    channelType: text(),
    config: json<Record<string, unknown>>(),
    sealedSecret: text().null(),
    enabled: boolean(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { indexes: [["alertId"]] },
);

/**
 * One row per alert, certificate, channel and period (`once`, or the UTC day for daily alerts).
 * Inserting it claims the notification, so no two runs or nodes send the same one; a failed
 * delivery is retried by later runs up to a bound.
 */
export const certificateAlertNotifications = defineTable(
  "cert_alert_notifications",
  {
    id: text(),
    alertId: text(),
    certificateId: text(),
    channelId: text(),
    period: text(),
    status: text(),
    attempts: integer(),
    error: text().null(),
    sentAt: timestamp().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["alertId", "certificateId", "channelId", "period"]], indexes: [["alertId", "status"]] },
);

export const certificateTables = {
  certificateAuthorities,
  certificateProfiles,
  certificates,
  discoveryJobs,
  certificateInstallations,
  installationCertificates,
  certificateAlerts,
  certificateAlertChannels,
  certificateAlertNotifications,
  certificateRevocationLists,
};

export type CaRow = RowOf<typeof certificateAuthorities>;
export type ProfileRow = RowOf<typeof certificateProfiles>;
export type CertificateRow = RowOf<typeof certificates>;
export type DiscoveryJobRow = RowOf<typeof discoveryJobs>;
export type InstallationRow = RowOf<typeof certificateInstallations>;
export type InstallationCertificateRow = RowOf<typeof installationCertificates>;
export type AlertRow = RowOf<typeof certificateAlerts>;
export type AlertChannelRow = RowOf<typeof certificateAlertChannels>;
export type AlertNotificationRow = RowOf<typeof certificateAlertNotifications>;
export type CrlRow = RowOf<typeof certificateRevocationLists>;
