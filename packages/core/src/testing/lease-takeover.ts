import { spawn } from "node:child_process";
import { once } from "node:events";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { DEFAULT_LEASE_MS } from "../jobs/lease.js";
import { ManualClock } from "../kernel/clock.js";
import type { StrongroomStorage as Storage } from "../schema.js";
import { jobNode, PROBE_INTERVAL_MS, PROBE_JOB } from "./job-node.js";

export interface LeaseTakeoverOptions {
  /** Absolute path of a module exporting `openStorage(): Promise<Storage>`, run inside the child. */
  opener: string;
  env?: Record<string, string>;
  /** Opens the same storage in this process: the surviving node. */
  reopen: () => Promise<Storage>;
  skip?: boolean;
}

const child = fileURLToPath(new URL(`./lease-child${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/**
 * Jobs are at least once: a node SIGKILLed in the middle of a job's run leaves its period
 * unrecorded; another node does not run it while the dead node's lease lasts, runs it once the
 * lease has lapsed, and then records it so no third node runs it again.
 */
export function runLeaseTakeoverTest(name: string, options: LeaseTakeoverOptions): void {
  it.skipIf(options.skip ?? false)(`${name}: a job period cut short by a killed node is run again by another once its lease lapses`, async () => {
    const proc = spawn(process.execPath, ["--conditions=source", "--import", "tsx", child, options.opener], {
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    const exited = once(proc, "exit");
    const running = await new Promise<boolean>((resolve) => {
      proc.stdout.on("data", (data: Buffer) => data.toString().includes("running") && resolve(true));
      void exited.then(() => resolve(false));
    });
    if (!running) throw new Error(`lease child failed: ${stderr}`);
    proc.kill("SIGKILL");
    await exited;

    const storage = await options.reopen();
    try {
      const clock = new ManualClock(new Date());
      const runs: Date[] = [];
      const survivor = jobNode(storage, [{ name: PROBE_JOB, intervalMs: PROBE_INTERVAL_MS, run: async () => void runs.push(clock.now()) }], { clock });
      // The dead node's lease still stands: nobody else runs its period yet.
      expect(await survivor.runDue()).toEqual([]);
      clock.advance(DEFAULT_LEASE_MS + 1_000);
      expect(await survivor.runDue()).toEqual([PROBE_JOB]);
      expect(runs).toHaveLength(1);
      // Recorded: the period is not run again, by this node or any other, until the next one.
      expect(await survivor.runDue()).toEqual([]);
      expect(await jobNode(storage, [{ name: PROBE_JOB, intervalMs: PROBE_INTERVAL_MS, run: async () => void runs.push(clock.now()) }], { clock }).runDue()).toEqual([]);
      clock.advance(PROBE_INTERVAL_MS);
      expect(await survivor.runDue()).toEqual([PROBE_JOB]);
      expect(runs).toHaveLength(2);
    } finally {
      await storage.close();
    }
  });
}
