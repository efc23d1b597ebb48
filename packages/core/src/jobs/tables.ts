import { defineTable, text, timestamp } from "../storage/columns.js";

/** Scheduled-job leases and runs. */

/** Scheduled-job leases: whoever holds an unexpired lease runs the job; see `jobs/lease.ts`. */
export const jobLeases = defineTable("job_leases", {
  id: text(),
  holder: text(),
  expiresAt: timestamp(),
  lastRunAt: timestamp().null(),
});

/** One row per scheduled-job run, written by the node that claimed the period. */
export const jobRuns = defineTable(
  "job_runs",
  {
    id: text(),
    job: text(),
    holder: text(),
    startedAt: timestamp(),
    finishedAt: timestamp().null(),
    error: text().null(),
  },
  { indexes: [["job", "startedAt"]] },
);

export const jobTables = { jobLeases, jobRuns };
