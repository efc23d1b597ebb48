import { tablesOf, UniqueViolationError, type Storage } from "../storage/table.js";
import { jobTables } from "./tables.js";

/**
 * How long a claimed run is held without a renewal. The holder renews it while the job runs; a
 * node that dies stops renewing, and another node takes the period over once it lapses.
 */
export const DEFAULT_LEASE_MS = 60_000;

/** A job's period as one node holds it: renew it while running, complete it when done. */
export interface PeriodLease {
  /** Extends the lease; false when it was lost (it lapsed and another node took the period). */
  renew(now: Date): Promise<boolean>;
  /** Records the period as run (from `startedAt`) and frees the lease. */
  complete(startedAt: Date, now: Date): Promise<void>;
}

/**
 * Claims the due period of a scheduled job, at least once: a period is due when `intervalMs` has
 * passed since the last completed run, and free when no node holds it (or its holder's lease
 * lapsed). A compare-and-set on the holder and its expiry lets exactly one node win each claim,
 * on every storage, with no advisory locks. A run that dies with its node is not recorded, so its
 * period stays due and is run again once the lease lapses — job bodies are written to be idempotent.
 */
export async function claimPeriod(storage: Storage, job: string, holder: string, intervalMs: number, now: Date, leaseMs = DEFAULT_LEASE_MS): Promise<PeriodLease | undefined> {
  const leases = tablesOf(storage, jobTables).jobLeases;
  let row = await leases.get(job);
  if (!row) {
    try {
      await leases.insert({ id: job, holder: "", expiresAt: new Date(0).toISOString(), lastRunAt: null });
    } catch (error) {
      if (!(error instanceof UniqueViolationError)) throw error;
    }
    row = await leases.get(job);
    if (!row) return undefined;
  }
  const due = !row.lastRunAt || now.getTime() - Date.parse(row.lastRunAt) >= intervalMs;
  const free = row.holder === "" || Date.parse(row.expiresAt) <= now.getTime();
  if (!due || !free) return undefined;
  const expiry = (at: Date) => new Date(at.getTime() + leaseMs).toISOString();
  const claimed = await leases.update({ id: job, holder: row.holder, expiresAt: row.expiresAt }, { holder, expiresAt: expiry(now) });
  if (claimed !== 1) return undefined;
  return {
    renew: async (at) => (await leases.update({ id: job, holder }, { expiresAt: expiry(at) })) === 1,
    async complete(startedAt, at) {
      await leases.update({ id: job, holder }, { holder: "", expiresAt: at.toISOString(), lastRunAt: startedAt.toISOString() });
    },
  };
}
