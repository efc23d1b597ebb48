export { claimPeriod, DEFAULT_LEASE_MS, type PeriodLease } from "./lease.js";
export { createScheduler, type ScheduledJob, type Scheduler, type SchedulerOptions } from "./scheduler.js";
export { housekeepingJob, type HousekeepingStep } from "./housekeeping.js";
