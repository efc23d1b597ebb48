export { claimPeriod } from "./lease.js";
export { createScheduler, type ScheduledJob, type Scheduler } from "./scheduler.js";
export { housekeepingJob, type HousekeepingStep } from "./housekeeping.js";
