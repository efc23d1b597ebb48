import type { CertificateRow } from "../tables.js";
import type { CertificateRecordObject } from "./schemas.js";

/** A stored certificate as the API shows it: public material and facts, `status` as of `now`. */
export function toCertificateObject(row: CertificateRow, now: Date): CertificateRecordObject {
  return {
    id: row.id,
    projectId: row.projectId,
    source: row.source as CertificateRecordObject["source"],
    status: row.revokedAt ? "revoked" : Date.parse(row.notAfter) <= now.getTime() ? "expired" : "active",
    caId: row.caId,
    profileId: row.profileId,
    commonName: row.commonName,
    subject: row.subject,
    issuer: row.issuer,
    subjectAltNames: row.subjectAltNames,
    serialNumber: row.serialNumber,
    fingerprint: row.fingerprint,
    isCA: row.isCA,
    keyAlgorithm: row.keyAlgorithm,
    notBefore: row.notBefore,
    notAfter: row.notAfter,
    certificate: row.certificatePem,
    certificateChain: row.certificateChain,
    revokedAt: row.revokedAt,
    revocationReason: row.revocationReason as CertificateRecordObject["revocationReason"],
    renewedFromCertificateId: row.renewedFromId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
