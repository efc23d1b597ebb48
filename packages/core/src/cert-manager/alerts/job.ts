import type { ScheduledJob } from "../../jobs/scheduler.js";
import { evaluateAlert } from "./evaluation.js";
import { alertRepository } from "./repository.js";

/**
 * Evaluates every enabled alert once an hour, on one node per period (the scheduler's lease).
 * One alert failing does not keep the others from running; the run records the failures.
 */
export const alertEvaluationJob: ScheduledJob = {
  name: "certificate-alert-evaluation",
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const alerts = await ctx.repo(alertRepository).enabled();
    const failures: string[] = [];
    for (const alert of alerts) {
      try {
        await evaluateAlert(ctx, alert);
      } catch (error) {
        failures.push(`${alert.id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (failures.length > 0) throw new Error(`${failures.length} alert evaluation(s) failed: ${failures.join("; ")}`);
  },
};
