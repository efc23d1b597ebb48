import { hash } from "node:crypto";
import { UniqueViolationError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import type { CertManagerRow } from "../tables.js";
import type { AppStorage as Storage } from "../../schema.js";
import type { InstallationObject } from "./schemas.js";
import type { ScanResult } from "../node/tls-scanner.js";

export type InstallationRow = CertManagerRow<"certificateInstallations">;

/** Where a TLS endpoint is: the scanned host (domain or IP literal) and port, and the address dialled. */
export interface NetworkLocation {
  host: string;
  ipAddress: string | null;
  port: number;
}

export const locationOfResult = (result: ScanResult): NetworkLocation => ({
  host: (result.servername ?? result.host).toLowerCase(),
  ipAddress: result.address ?? null,
  port: result.port,
});

/** Stable across scans and jobs: the same host and port is the same installation. */
export const locationFingerprint = (location: NetworkLocation): string =>
  hash("sha256", `network|tls|${location.host}|${location.port}`, "hex");

/** SPEC.md leaves the shape open: `{fqdn | ipAddress, port, protocol}`, plus the resolved `ipAddress` for a domain. */
function locationDetails(location: NetworkLocation, isDomain: boolean): Record<string, unknown> {
  return isDomain
    ? { fqdn: location.host, ...(location.ipAddress ? { ipAddress: location.ipAddress } : {}), port: location.port, protocol: "tls" }
    : { ipAddress: location.host, port: location.port, protocol: "tls" };
}

export function toInstallationObject(row: InstallationRow, certificatesCount: number): InstallationObject {
  return {
    id: row.id,
    locationType: row.locationType,
    locationFingerprint: row.locationFingerprint,
    name: row.name,
    type: row.type,
    primaryCertName: row.primaryCertName,
    discoveryName: row.discoveryName,
    lastSeenAt: row.lastSeenAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    locationDetails: row.locationDetails,
    metadata: row.metadata,
    certificatesCount,
  };
}

export interface SightingInput {
  projectId: string;
  discovery: { id: string; name: string };
  result: ScanResult;
  /** Certificate ids in the order the server presented them, leaf first. */
  certificateIds: string[];
  primaryCertName: string;
  now: string;
}

async function writeSighting(tx: Storage, input: SightingInput): Promise<void> {
  const location = locationOfResult(input.result);
  const fingerprint = locationFingerprint(location);
  const table = tx.tables.certificateInstallations;
  const existing = await table.findOne({ projectId: input.projectId, locationFingerprint: fingerprint });
  const seen = {
    discoveryId: input.discovery.id,
    discoveryName: input.discovery.name,
    ipAddress: location.ipAddress,
    primaryCertName: input.primaryCertName,
    locationDetails: locationDetails(location, input.result.servername !== undefined),
    lastSeenAt: input.now,
    updatedAt: input.now,
  };
  let installationId: string;
  if (existing) {
    installationId = existing.id;
    await table.update({ id: existing.id }, seen);
  } else {
    installationId = newId();
    await table.insert({
      id: installationId,
      projectId: input.projectId,
      locationType: "network",
      locationFingerprint: fingerprint,
      host: location.host,
      port: location.port,
      name: `${location.host}:${location.port}`,
      type: "unknown",
      metadata: null,
      createdAt: input.now,
      ...seen,
    });
  }
  await tx.tables.installationCertificates.delete({ installationId });
  const ids = [...new Set(input.certificateIds)];
  await tx.tables.installationCertificates.insertMany(
    ids.map((certificateId, position) => ({ id: newId(), projectId: input.projectId, installationId, certificateId, position, createdAt: input.now })),
  );
}

/**
 * Upserts the installation at a scanned location and replaces the certificates linked to it with
 * what it presented now, in one transaction. A concurrent scan inserting the same location first
 * turns the insert into an update on the retry.
 */
export async function recordSighting(storage: Storage, input: SightingInput): Promise<void> {
  try {
    await storage.transaction((tx) => writeSighting(tx, input));
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
    await storage.transaction((tx) => writeSighting(tx, input));
  }
}

/** How many certificates each installation presented at its latest scan. */
export async function certificateCounts(storage: Storage, installationIds: string[]): Promise<Map<string, number>> {
  const counts = new Map(installationIds.map((id) => [id, 0]));
  if (installationIds.length === 0) return counts;
  const links = await storage.tables.installationCertificates.find({ installationId: { in: installationIds } });
  for (const link of links) counts.set(link.installationId, (counts.get(link.installationId) ?? 0) + 1);
  return counts;
}
