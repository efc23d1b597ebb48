import type { Context } from "../kernel/context.js";

const DAY = 24 * 60 * 60 * 1000;

/**
 * Deletes enrollment tokens and agent sessions that expired or were revoked over a day ago: they
 * can never be used again, and only their hashes are kept. For the hourly housekeeping job.
 */
export async function purgeLapsedAgentRecords(ctx: Context, now: Date): Promise<void> {
  const storage = ctx.storage;
  const cutoff = new Date(now.getTime() - DAY).toISOString();
  await storage.tables.agentProxyEnrollmentTokens.delete({ expiresAt: { lt: cutoff } });
  await storage.tables.agentSessions.delete({ expiresAt: { lt: cutoff } });
  await storage.tables.agentSessions.delete({ revokedAt: { lt: cutoff } });
}
