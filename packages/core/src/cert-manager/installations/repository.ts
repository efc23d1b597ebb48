import { defineRepository } from "../../kernel/context.js";
import { UniqueViolationError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf, type Where } from "../../storage/table.js";
import { findPage, type Page, type PageRequest } from "../pages.js";
import type { ScanResult } from "../ports.js";
import { certificateInstallations, certificates, installationCertificates, type CertificateRow, type InstallationRow } from "../tables.js";
import { locationDetails, locationFingerprint, locationOfResult } from "./location.js";

export interface InstallationFilter {
  discoveryId?: string;
  /** Only locations that presented this certificate at their latest scan. */
  certificateId?: string;
  /** Case-insensitive substring of the name, host name or IP address. */
  search?: string;
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

const installationTables = { certificateInstallations, installationCertificates, certificates };

/** Where certificates were seen, and which certificates each location presented at its latest scan. */
export const installationRepository = defineRepository("certificate-installations", (ctx) => {
  const t = tablesOf(ctx.storage, installationTables);

  async function writeSighting(tx: typeof t, input: SightingInput): Promise<void> {
    const location = locationOfResult(input.result);
    const fingerprint = locationFingerprint(location);
    const existing = await tx.certificateInstallations.findOne({ projectId: input.projectId, locationFingerprint: fingerprint });
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
      await tx.certificateInstallations.update({ id: existing.id }, seen);
    } else {
      installationId = newId();
      await tx.certificateInstallations.insert({
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
    await tx.installationCertificates.delete({ installationId });
    const ids = [...new Set(input.certificateIds)];
    await tx.installationCertificates.insertMany(
      ids.map((certificateId, position) => ({ id: newId(), projectId: input.projectId, installationId, certificateId, position, createdAt: input.now })),
    );
  }

  const inTransaction = (input: SightingInput) => ctx.withTransaction((tx) => writeSighting(tablesOf(tx.storage, installationTables), input));

  return {
    get: (id: string): Promise<InstallationRow | undefined> => t.certificateInstallations.get(id),
    /** Newest first. */
    async page(projectId: string, filter: InstallationFilter, page: PageRequest): Promise<Page<InstallationRow>> {
      let ids: string[] | undefined;
      if (filter.certificateId) {
        const links = await t.installationCertificates.find({ projectId, certificateId: filter.certificateId });
        if (links.length === 0) return { rows: [], totalCount: 0 };
        ids = links.map((link) => link.installationId);
      }
      const { search } = filter;
      const where: Where<InstallationRow> = {
        projectId,
        ...(filter.discoveryId ? { discoveryId: filter.discoveryId } : {}),
        ...(ids ? { id: { in: ids } } : {}),
        ...(search ? { $or: [{ name: { contains: search } }, { host: { contains: search } }, { ipAddress: { contains: search } }] } : {}),
      };
      return findPage(t.certificateInstallations, where, [["createdAt", "desc"], ["id", "desc"]], page);
    },
    /** How many certificates each installation presented at its latest scan. */
    async certificateCounts(installationIds: readonly string[]): Promise<Map<string, number>> {
      const counts = new Map(installationIds.map((id) => [id, 0]));
      if (installationIds.length === 0) return counts;
      const links = await t.installationCertificates.find({ installationId: { in: [...installationIds] } });
      for (const link of links) counts.set(link.installationId, (counts.get(link.installationId) ?? 0) + 1);
      return counts;
    },
    /** What the installation presented at its latest scan, leaf first; `linked` counts the links, even to certificates since gone. */
    async presentedCertificates(installationId: string): Promise<{ linked: number; certificates: CertificateRow[] }> {
      const links = await t.installationCertificates.find({ installationId }, { orderBy: [["position", "asc"]] });
      const rows = links.length ? await t.certificates.find({ id: { in: links.map((link) => link.certificateId) } }) : [];
      const byId = new Map(rows.map((row) => [row.id, row]));
      return { linked: links.length, certificates: links.flatMap((link) => byId.get(link.certificateId) ?? []) };
    },
    /**
     * Upserts the installation at a scanned location and replaces the certificates linked to it with
     * what it presented now, in one transaction. A concurrent scan inserting the same location first
     * turns the insert into an update on the retry.
     */
    async recordSighting(input: SightingInput): Promise<void> {
      try {
        await inTransaction(input);
      } catch (error) {
        if (!(error instanceof UniqueViolationError)) throw error;
        await inTransaction(input);
      }
    },
    /** A discovery job being deleted: what it found stays, no longer linked to it. */
    unlinkDiscovery: (discoveryId: string): Promise<number> => t.certificateInstallations.update({ discoveryId }, { discoveryId: null }),
  };
});
