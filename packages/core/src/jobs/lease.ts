import { tablesOf, UniqueViolationError, type Storage } from "../storage/table.js";
import { jobTables } from "./tables.js";

/**
 * Claims one period of a scheduled job. A compare-and-set on the job's `lastRunAt` lets exactly
 * one caller win per period, whichever node or storage it runs on, with no advisory locks.
 */
export async function claimPeriod(storage: Storage, job: string, holder: string, intervalMs: number, now: Date): Promise<boolean> {
  const leases = tablesOf(storage, jobTables).jobLeases;
  let row = await leases.get(job);
  if (!row) {
    try {
      await leases.insert({ id: job, holder: "", expiresAt: new Date(0).toISOString(), lastRunAt: null });
    } catch (error) {
      if (!(error instanceof UniqueViolationError)) throw error;
    }
    row = await leases.get(job);
    if (!row) return false;
  }
  if (row.lastRunAt && now.getTime() - Date.parse(row.lastRunAt) < intervalMs) return false;
  const claimed = await leases.update(
    { id: job, lastRunAt: row.lastRunAt },
    { lastRunAt: now.toISOString(), holder, expiresAt: new Date(now.getTime() + intervalMs).toISOString() },
  );
  return claimed === 1;
}
