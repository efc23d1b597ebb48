import { UniqueViolationError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import type { CertManagerRow } from "../tables.js";
import type { AppStorage as Storage } from "../../schema.js";
import type { ParsedCertificate } from "../../x509/certificate-reader.js";
import type { CertificateRecordObject } from "./schemas.js";
import type { ScannedCertificate } from "../node/tls-scanner.js";

export type CertificateRow = CertManagerRow<"certificates">;

export function toCertificateObject(row: CertificateRow, now: Date): CertificateRecordObject {
  return {
    id: row.id,
    projectId: row.projectId,
    source: row.source as CertificateRecordObject["source"],
    status: Date.parse(row.notAfter) <= now.getTime() ? "expired" : "active",
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
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

interface Provenance {
  projectId: string;
  source: "issued" | "discovered";
  caId: string | null;
  profileId: string | null;
  keyAlgorithm: string | null;
  certificatePem: string;
  certificateChain: string;
}

/** A new row from what parseCertificate read and where the certificate came from. */
export function certificateRow(parsed: ParsedCertificate, provenance: Provenance, now: string): CertificateRow {
  return {
    id: newId(),
    ...provenance,
    fingerprint: parsed.fingerprintSha256,
    serialNumber: parsed.serialNumber,
    commonName: parsed.commonName,
    subject: parsed.subject,
    issuer: parsed.issuer,
    subjectAltNames: parsed.subjectAltNames,
    isCA: parsed.isCA,
    notBefore: parsed.notBefore.toISOString(),
    notAfter: parsed.notAfter.toISOString(),
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Records a chain a server presented, one row per certificate by fingerprint: a certificate
 * seen before (discovered elsewhere, or issued here) keeps its row. Returns the ids in chain
 * order and how many rows are new.
 */
export async function recordPresentedChain(
  storage: Storage,
  projectId: string,
  chain: ScannedCertificate[],
  now: string,
): Promise<{ ids: string[]; created: number }> {
  const table = storage.tables.certificates;
  const ids: string[] = [];
  let created = 0;
  for (const [index, certificate] of chain.entries()) {
    const existing = await table.findOne({ projectId, fingerprint: certificate.fingerprintSha256 });
    if (existing) {
      ids.push(existing.id);
      continue;
    }
    const row = certificateRow(
      certificate,
      {
        projectId,
        source: "discovered",
        caId: null,
        profileId: null,
        keyAlgorithm: null,
        certificatePem: certificate.pem,
        certificateChain: chain.slice(index + 1).map((c) => c.pem).join(""),
      },
      now,
    );
    try {
      await table.insert(row);
      ids.push(row.id);
      created++;
    } catch (error) {
      // Another scan of the same project recorded it a moment ago.
      if (!(error instanceof UniqueViolationError)) throw error;
      const raced = await table.findOne({ projectId, fingerprint: certificate.fingerprintSha256 });
      if (!raced) throw error;
      ids.push(raced.id);
    }
  }
  return { ids, created };
}
