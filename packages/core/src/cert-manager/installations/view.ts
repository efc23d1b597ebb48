import type { CertificateRow, InstallationRow } from "../tables.js";
import type { InstallationObject, LinkedCertificateObject } from "./schemas.js";

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

/** A certificate an installation presented, in brief. */
export const toLinkedCertificate = ({ id, commonName, fingerprint, serialNumber, notAfter, isCA }: CertificateRow): LinkedCertificateObject => ({
  id,
  commonName,
  fingerprint,
  serialNumber,
  notAfter,
  isCA,
});
