import type { ScheduledJob } from "../../jobs/scheduler.js";
import { BadRequestError } from "../../kernel/errors.js";
import type { DiscoveryJobRow } from "../tables.js";
import { discoveryRepository } from "./repository.js";
import { claimScan, runScan } from "./scan.js";

const DAY_MS = 86_400_000;

/** Never scanned, or the last scan finished at least `scanIntervalDays` ago. */
export const isScanDue = (job: DiscoveryJobRow, now: Date): boolean =>
  job.lastScannedAt === null || now.getTime() - Date.parse(job.lastScannedAt) >= job.scanIntervalDays * DAY_MS;

/**
 * Scans every active job with auto-scan on whose interval has elapsed, one after another. The
 * scheduler's lease runs each hourly period on one node; the scan claim keeps a scan requested by
 * hand at the same moment from running twice.
 */
export const discoveryAutoScanJob: ScheduledJob = {
  name: "certificate-discovery-autoscan",
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const jobs = await ctx.repo(discoveryRepository).autoScanned();
    for (const job of jobs) {
      if (!isScanDue(job, ctx.clock.now())) continue;
      let claimed: DiscoveryJobRow;
      try {
        claimed = await claimScan(ctx, job);
      } catch (error) {
        if (error instanceof BadRequestError) continue; // already scanning
        throw error;
      }
      await runScan(ctx, claimed);
    }
  },
};
