import type { ScheduledJob } from "../../jobs/scheduler.js";
import { environmentRepository } from "./repository.js";

/** Removes soft-deleted environments whose `deleteAfter` has passed, each in its own transaction. */
export const environmentPurgeJob: ScheduledJob = {
  name: "environment-purge",
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const now = ctx.clock.now().toISOString();
    const environments = ctx.repo(environmentRepository);
    for (const env of await environments.purgeDue(now)) await environments.purge(env, now);
  },
};
