import { defineRepository } from "../../kernel/context.js";
import { tablesOf, type Where } from "../../storage/table.js";
import { installationRepository } from "../installations/repository.js";
import { findPage, type Page, type PageRequest } from "../pages.js";
import { discoveryJobs, type DiscoveryJobRow } from "../tables.js";

/** One scan of a job: the job and the scan id it was claimed under. */
export interface ScanClaim {
  id: string;
  lastScanJobId: string | null;
}

export const discoveryRepository = defineRepository("discovery-jobs", (ctx) => {
  const t = tablesOf(ctx.storage, { discoveryJobs });
  return {
    get: (id: string): Promise<DiscoveryJobRow | undefined> => t.discoveryJobs.get(id),
    byName: (projectId: string, name: string): Promise<DiscoveryJobRow | undefined> => t.discoveryJobs.findOne({ projectId, name }),
    /** Oldest first; `search` matches the name, case-insensitively. */
    page(projectId: string, search: string | undefined, page: PageRequest): Promise<Page<DiscoveryJobRow>> {
      const where: Where<DiscoveryJobRow> = { projectId, ...(search ? { name: { contains: search } } : {}) };
      return findPage(t.discoveryJobs, where, [["createdAt", "asc"], ["id", "asc"]], page);
    },
    /** Active jobs with auto-scan on, oldest first. */
    autoScanned: (): Promise<DiscoveryJobRow[]> => t.discoveryJobs.find({ isAutoScanEnabled: true, isActive: true }, { orderBy: [["createdAt", "asc"]] }),
    insert: (row: DiscoveryJobRow): Promise<void> => t.discoveryJobs.insert(row),
    update: (id: string, patch: Partial<DiscoveryJobRow>): Promise<number> => t.discoveryJobs.update({ id }, patch),
    /**
     * Writes `patch` only while the job is still at the scan `claim` names, in one conditional
     * statement: of two concurrent writers under the same claim one wins, and a scan that was
     * superseded (or whose job was deleted) writes nothing. True when it wrote.
     */
    async updateClaimed(claim: ScanClaim, patch: Partial<DiscoveryJobRow>): Promise<boolean> {
      return (await t.discoveryJobs.update({ id: claim.id, lastScanJobId: claim.lastScanJobId }, patch)) === 1;
    },
    /** Whether the job still exists and is at the scan `claim` names. */
    async holdsClaim(claim: ScanClaim): Promise<boolean> {
      return (await t.discoveryJobs.findOne({ id: claim.id, lastScanJobId: claim.lastScanJobId })) !== undefined;
    },
    /** Deletes the job; the installations and certificates it found are kept. */
    remove: (id: string): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        await tx.repo(installationRepository).unlinkDiscovery(id);
        await tablesOf(tx.storage, { discoveryJobs }).discoveryJobs.delete({ id });
      }),
  };
});
