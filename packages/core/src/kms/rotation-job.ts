import { accessRepository } from "../access/repository.js";
import type { ScheduledJob } from "../jobs/scheduler.js";
import { cmekRepository } from "./keys/repository.js";
import { rotateKey } from "./keys/rotate.js";

/**
 * Rotates the keys whose rotation interval has come round. The scheduler's lease runs each period
 * on one node only; a key rotated twice by a slow overlap would only gain one extra version.
 */
export const keyRotationJob: ScheduledJob = {
  name: "kms-key-rotation",
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const repo = ctx.repo(cmekRepository);
    for (const key of await repo.dueForRotation(ctx.clock.now().toISOString())) {
      const project = await ctx.repo(accessRepository).projectById(key.projectId);
      if (project) await rotateKey(ctx, key, project.kmsSecretManagerKeyId);
    }
  },
};
