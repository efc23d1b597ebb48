import { purgeLapsedAgentRecords } from "../agent-vault/housekeeping.js";
import type { ScheduledJob } from "./scheduler.js";

const DAY = 24 * 60 * 60 * 1000;

/**
 * Deletes access tokens, enrollment tokens and agent sessions that lapsed or were revoked over a
 * day ago, and job-run records older than 30 days.
 */
export const housekeepingJob: ScheduledJob = {
  name: "housekeeping",
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const now = ctx.clock.now().getTime();
    const tokenCutoff = new Date(now - DAY).toISOString();
    await ctx.storage.tables.accessTokens.delete({ expiresAt: { lt: tokenCutoff } });
    await ctx.storage.tables.accessTokens.delete({ revokedAt: { lt: tokenCutoff } });
    await purgeLapsedAgentRecords(ctx.storage, ctx.clock.now());
    await ctx.storage.tables.jobRuns.delete({ startedAt: { lt: new Date(now - 30 * DAY).toISOString() } });
  },
};
