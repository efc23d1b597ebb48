import type { ScheduledJob } from "./scheduler.js";
import { housekeepingJob } from "./housekeeping.js";
import { alertEvaluationJob, discoveryAutoScanJob } from "../certificates/operations.js";
import { environmentPurgeJob } from "../environments/purge.js";

export { claimPeriod } from "./lease.js";
export { createScheduler, type ScheduledJob, type Scheduler } from "./scheduler.js";

/** Every periodic job of the service; areas add theirs here. */
export const scheduledJobs: ScheduledJob[] = [housekeepingJob, environmentPurgeJob, discoveryAutoScanJob, alertEvaluationJob];
