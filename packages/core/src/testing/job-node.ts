import { randomBytes } from "node:crypto";
import { KeyRing } from "../crypto/keyring.js";
import { createScheduler, type ScheduledJob, type Scheduler } from "../jobs/scheduler.js";
import { createLocalBus } from "../kernel/bus.js";
import { systemClock, type Clock } from "../kernel/clock.js";
import { resolveConfig } from "../kernel/config.js";
import { createContext, HookRegistry } from "../kernel/context.js";
import type { StrongroomStorage as Storage } from "../schema.js";

/** The job the lease-takeover test has a node die in: its period is an hour. */
export const PROBE_JOB = "lease-probe";
export const PROBE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * A node's scheduler over a storage, running only the given jobs: what one server process does
 * for its periodic work, without the rest of an instance.
 */
export function jobNode(storage: Storage, jobs: readonly ScheduledJob[], options: { clock?: Clock; leaseMs?: number } = {}): Scheduler {
  const ctx = createContext({
    storage,
    clock: options.clock ?? systemClock,
    bus: createLocalBus(),
    keys: new KeyRing(randomBytes(32)),
    config: resolveConfig(),
    log: () => undefined,
    hooks: new HookRegistry(),
  });
  return createScheduler(ctx, jobs, () => undefined, { leaseMs: options.leaseMs });
}
