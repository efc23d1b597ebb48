import type { Context } from "../kernel/context.js";
import { newId } from "../kernel/ids.js";
import { tablesOf } from "../storage/table.js";
import { claimPeriod, DEFAULT_LEASE_MS, type PeriodLease } from "./lease.js";
import { jobTables } from "./tables.js";

export interface ScheduledJob {
  name: string;
  intervalMs: number;
  run(ctx: Context): Promise<void>;
}

/** One run of a job on this node, as told to `Scheduler.onRun` listeners. */
export interface JobRunReport {
  readonly job: string;
  /** `failed` when the job threw, or its run could not be recorded. */
  readonly outcome: "succeeded" | "failed";
  readonly durationMs: number;
}

export interface Scheduler {
  /** This node's lease holder id, recorded on every run it makes. */
  readonly holder: string;
  /** Tells `listener` about every run this node makes (metrics); returns a function that stops telling it. */
  onRun(listener: (run: JobRunReport) => void): () => void;
  /** Runs every job whose period is due and that this node claims; returns the names it ran. */
  runDue(): Promise<string[]>;
  /** Checks for due jobs every `tickMs` of real time until stopped. */
  start(tickMs?: number): void;
  stop(): Promise<void>;
}

export interface SchedulerOptions {
  /** How long a claimed run is held between renewals (see `claimPeriod`). Default 60 s. */
  leaseMs?: number;
}

/**
 * Periodic work (token clean-up, discovery auto-scans, alert evaluation). Every node runs a
 * scheduler; the lease makes each period's run happen on one node at a time, and at least once:
 * a run cut short by its node's death is taken over by another node when the lease lapses.
 */
export function createScheduler(ctx: Context, jobs: readonly ScheduledJob[], onError: (job: string, error: unknown) => void, options: SchedulerOptions = {}): Scheduler {
  const holder = newId();
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;

  /** Runs `job` while renewing its lease, a third of the lease apart, so a long run is not taken over. */
  const whileHeld = async (job: ScheduledJob, lease: PeriodLease, run: () => Promise<void>) => {
    const renewal = setInterval(() => {
      lease.renew(ctx.clock.now()).then(
        (held) => held || onError(job.name, new Error("the job's lease lapsed while it ran; another node may run it again")),
        (error: unknown) => onError(job.name, error),
      );
    }, leaseMs / 3);
    renewal.unref();
    try {
      await run();
    } finally {
      clearInterval(renewal);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const listeners = new Set<(run: JobRunReport) => void>();
  const report = (run: JobRunReport) => {
    for (const listener of listeners) {
      try {
        listener(run);
      } catch {
        // A broken listener must not stop the jobs.
      }
    }
  };

  const runDue = async () => {
    const ran: string[] = [];
    for (const job of jobs) {
      // Real time, not the instance clock: a manual clock in tests would make every run last 0 ms.
      let began: number | undefined;
      try {
        const startedAt = ctx.clock.now();
        const lease = await claimPeriod(ctx.storage, job.name, holder, job.intervalMs, startedAt, leaseMs);
        if (!lease) continue;
        ran.push(job.name);
        began = performance.now();
        const runId = newId();
        const runs = tablesOf(ctx.storage, jobTables).jobRuns;
        await runs.insert({
          id: runId,
          job: job.name,
          holder,
          startedAt: startedAt.toISOString(),
          finishedAt: null,
          error: null,
        });
        let failure: string | null = null;
        await whileHeld(job, lease, async () => {
          try {
            await job.run(ctx);
          } catch (error) {
            failure = error instanceof Error ? error.message : String(error);
            onError(job.name, error);
          }
        });
        // A run that failed is recorded as run (its error with it): it is not retried every tick.
        const finishedAt = ctx.clock.now();
        await runs.update({ id: runId }, { finishedAt: finishedAt.toISOString(), error: failure });
        await lease.complete(startedAt, finishedAt);
        report({ job: job.name, outcome: failure === null ? "succeeded" : "failed", durationMs: performance.now() - began });
      } catch (error) {
        onError(job.name, error);
        if (began !== undefined) report({ job: job.name, outcome: "failed", durationMs: performance.now() - began });
      }
    }
    return ran;
  };

  return {
    holder,
    onRun(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    runDue,
    start(tickMs = 30_000) {
      if (timer) return;
      timer = setInterval(() => {
        running = running.then(runDue);
      }, tickMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running.catch(() => undefined);
    },
  };
}

/** Housekeeping step: job-run records older than 30 days go. */
export async function purgeOldJobRuns(ctx: Context, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - 30 * 24 * 60 * 60 * 1000).toISOString();
  await tablesOf(ctx.storage, jobTables).jobRuns.delete({ startedAt: { lt: cutoff } });
}
