import { defineRepository } from "../../kernel/context.js";
import { UniqueViolationError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf, type Where } from "../../storage/table.js";
import type { ParsedCertificate } from "../../x509/certificate-reader.js";
import { findPage, type Page, type PageRequest } from "../pages.js";
import type { ScannedCertificate } from "../ports.js";
import { certificates, type CertificateRow, type StoredIssuance } from "../tables.js";

/** Where a certificate came from, besides what it says itself. */
export interface Provenance {
  projectId: string;
  source: "issued" | "discovered";
  caId: string | null;
  profileId: string | null;
  keyAlgorithm: string | null;
  certificatePem: string;
  certificateChain: string;
  /** How it was issued, for renewal; issued certificates only. */
  issuance?: StoredIssuance;
  renewedFromId?: string;
}

/** What a certificate's `status` is as of a moment: revoked first, then by notAfter. */
export type CertificateStatus = "active" | "expired" | "revoked";

export interface CertificateFilter {
  source?: "issued" | "discovered";
  profileId?: string;
  /** With `now`, the moment the status is judged at. */
  status?: CertificateStatus;
  now?: Date;
  /** Case-insensitive substring of the common name. */
  search?: string;
}

/** The conditions a status filter puts on the rows. */
function statusWhere(status: CertificateStatus | undefined, now: Date | undefined): Where<CertificateRow> {
  if (!status) return {};
  if (status === "revoked") return { revokedAt: { ne: null } };
  const at = (now ?? new Date()).toISOString();
  return { revokedAt: null, notAfter: status === "expired" ? { lte: at } : { gt: at } };
}

/** A new row from what parseCertificate read and where the certificate came from. */
function certificateRow(parsed: ParsedCertificate, provenance: Provenance, now: string): CertificateRow {
  const { issuance: _issuance, renewedFromId: _renewedFrom, ...where } = provenance;
  return {
    id: newId(),
    ...where,
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
    issuance: provenance.issuance ?? null,
    revokedAt: null,
    revocationReason: null,
    renewedFromId: provenance.renewedFromId ?? null,
  };
}

/** Certificates issued here or found on the network, one row per project and SHA-256 fingerprint. */
export const certificateRepository = defineRepository("certificates", (ctx) => {
  const t = tablesOf(ctx.storage, { certificates });
  return {
    get: (id: string): Promise<CertificateRow | undefined> => t.certificates.get(id),
    byIds: (ids: readonly string[]): Promise<CertificateRow[]> => (ids.length ? t.certificates.find({ id: { in: [...ids] } }) : Promise.resolve([])),
    /** Newest first. */
    page(projectId: string, filter: CertificateFilter, page: PageRequest): Promise<Page<CertificateRow>> {
      const where: Where<CertificateRow> = {
        projectId,
        ...(filter.source ? { source: filter.source } : {}),
        ...(filter.profileId ? { profileId: filter.profileId } : {}),
        ...statusWhere(filter.status, filter.now),
        ...(filter.search ? { commonName: { contains: filter.search } } : {}),
      };
      return findPage(t.certificates, where, [["createdAt", "desc"], ["id", "desc"]], page);
    },
    /** The project's certificates whose notAfter is no later than `end`, soonest first. */
    expiringBy: (projectId: string, end: Date): Promise<CertificateRow[]> =>
      t.certificates.find({ projectId, notAfter: { lte: end.toISOString() } }, { orderBy: [["notAfter", "asc"]] }),
    /** Records a certificate issued here and returns its row. */
    async recordIssued(parsed: ParsedCertificate, provenance: Omit<Provenance, "source">, now: string): Promise<CertificateRow> {
      const row = certificateRow(parsed, { ...provenance, source: "issued" }, now);
      await t.certificates.insert(row);
      return row;
    },
    /**
     * Records a chain a server presented, one row per certificate by fingerprint: a certificate
     * seen before (discovered elsewhere, or issued here) keeps its row. Returns the ids in chain
     * order and how many rows are new.
     */
    async recordPresentedChain(projectId: string, chain: ScannedCertificate[], now: string): Promise<{ ids: string[]; created: number }> {
      const ids: string[] = [];
      let created = 0;
      for (const [index, certificate] of chain.entries()) {
        const existing = await t.certificates.findOne({ projectId, fingerprint: certificate.fingerprintSha256 });
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
          await t.certificates.insert(row);
          ids.push(row.id);
          created++;
        } catch (error) {
          // Another scan of the same project recorded it a moment ago.
          if (!(error instanceof UniqueViolationError)) throw error;
          const raced = await t.certificates.findOne({ projectId, fingerprint: certificate.fingerprintSha256 });
          if (!raced) throw error;
          ids.push(raced.id);
        }
      }
      return { ids, created };
    },
    /** Marks a certificate revoked; false when it already was (of concurrent revocations exactly one wins). */
    revoke: async (id: string, reason: string, at: string): Promise<boolean> =>
      (await t.certificates.update({ id, revokedAt: null }, { revokedAt: at, revocationReason: reason, updatedAt: at })) === 1,
    /** The revoked certificates a CA issued, oldest revocation first. */
    revokedBy: (caId: string): Promise<CertificateRow[]> =>
      t.certificates.find({ caId, revokedAt: { ne: null } }, { orderBy: [["revokedAt", "asc"], ["id", "asc"]] }),
    countRevokedBy: (caId: string): Promise<number> => t.certificates.count({ caId, revokedAt: { ne: null } }),
    /** The certificates issued from a profile being deleted keep their row, no longer linked to it. */
    unlinkProfile: (projectId: string, profileId: string): Promise<number> => t.certificates.update({ projectId, profileId }, { profileId: null }),
  };
});
