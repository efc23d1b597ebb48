import type { ScheduledJob } from "./scheduler.js";
import { housekeepingJob } from "./housekeeping.js";
import { alertEvaluationJob, discoveryAutoScanJob } from "../cert-manager/operations.js";
import { environmentPurgeJob } from "../secret-manager/environments/purge.js";

export { claimPeriod } from "./lease.js";
export { createScheduler, type ScheduledJob, type Scheduler } from "./scheduler.js";

/** Every periodic job of the service; areas add theirs here. */
export const scheduledJobs: ScheduledJob[] = [housekeepingJob, environmentPurgeJob, discoveryAutoScanJob, alertEvaluationJob];
