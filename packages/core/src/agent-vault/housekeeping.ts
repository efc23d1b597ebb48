import type { Context } from "../kernel/context.js";
import { proxyRepository } from "./proxies/repository.js";
import { sessionRepository } from "./sessions/repository.js";

const DAY = 24 * 60 * 60 * 1000;

/**
 * Deletes enrollment tokens and agent sessions that expired or were revoked over a day ago: they
 * can never be used again, and only their hashes are kept. For the hourly housekeeping job.
 */
export async function purgeLapsedAgentRecords(ctx: Context, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - DAY).toISOString();
  await ctx.repo(proxyRepository).purgeEnrollmentTokensLapsedBefore(cutoff);
  await ctx.repo(sessionRepository).purgeLapsedBefore(cutoff);
}
