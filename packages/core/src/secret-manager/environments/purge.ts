import { deleteServices } from "../../agent-vault/services/repository.js";
import type { ScheduledJob } from "../../jobs/scheduler.js";

/**
 * Removes soft-deleted environments whose `deleteAfter` has passed, with everything in them:
 * folders, secrets and their versions, imports into and out of them, proxied services. Each
 * environment goes in one transaction.
 */
export const environmentPurgeJob: ScheduledJob = {
  name: "environment-purge",
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const now = ctx.clock.now().toISOString();
    const due = await ctx.storage.tables.environments.find({ deleteAfter: { lte: now } });
    for (const env of due) {
      await ctx.storage.transaction(async (tx) => {
        const t = tx.tables;
        await deleteServices(tx, await t.proxiedServices.find({ envId: env.id }), now);
        await t.secretVersions.delete({ envId: env.id });
        await t.secrets.delete({ envId: env.id });
        await t.secretImports.delete({ envId: env.id });
        await t.secretImports.delete({ importEnvId: env.id });
        await t.secretFolders.delete({ envId: env.id });
        await t.environments.delete({ id: env.id });
      });
    }
  },
};
