import type { ScheduledJob } from "../../jobs/scheduler.js";
import { checkpointChains } from "../control.js";
import { auditLogService } from "../log.js";

/**
 * Signs a checkpoint of every chain that moved: once across nodes (the scheduler's lease), every
 * five minutes, so a copy can be checked against a signed head no older than that.
 */
export const auditCheckpointJob: ScheduledJob = {
  name: "audit-checkpoints",
  intervalMs: 5 * 60 * 1000,
  run: async (ctx) => {
    await checkpointChains(ctx, ctx.service(auditLogService));
  },
};
