import type { Context } from "../kernel/context.js";
import type { ScheduledJob } from "./scheduler.js";

/** One clean-up an area contributes to the hourly housekeeping run. */
export type HousekeepingStep = (ctx: Context, now: Date) => Promise<void>;

/**
 * The hourly housekeeping job: each area's clean-up (lapsed tokens, enrollment tokens, agent
 * sessions, old job-run records), in order, as one leased job.
 */
export function housekeepingJob(steps: readonly HousekeepingStep[]): ScheduledJob {
  return {
    name: "housekeeping",
    intervalMs: 60 * 60 * 1000,
    async run(ctx) {
      const now = ctx.clock.now();
      for (const step of steps) await step(ctx, now);
    },
  };
}
