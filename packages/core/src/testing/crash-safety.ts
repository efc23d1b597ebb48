import { spawn } from "node:child_process";
import { once } from "node:events";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import type { StrongroomStorage as Storage } from "../schema.js";
import { CRASH_ROWS } from "./crash-child.js";

export interface CrashSafetyOptions {
  /** Absolute path of a module exporting `openStorage(): Promise<Storage>`, run inside the child. */
  opener: string;
  /** Extra environment for the child (e.g. which file or database to open). */
  env?: Record<string, string>;
  /** Opens the same storage in this process to look at what survived. */
  reopen: () => Promise<Storage>;
  /** Waits until nothing of the killed child can still land (e.g. its server session has ended). */
  afterKill?: () => Promise<void>;
  runs?: number;
  skip?: boolean;
}

const child = fileURLToPath(new URL(`./crash-child${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/**
 * A process SIGKILLed in the middle of a transaction leaves either all of its rows or none.
 * Each run kills the child at a different point of its 5,000-row transaction.
 */
export function runCrashSafetyTest(name: string, options: CrashSafetyOptions): void {
  it.skipIf(options.skip ?? false)(`${name}: a process killed mid-transaction leaves all ${CRASH_ROWS} rows or none`, async () => {
    const runs = options.runs ?? 3;
    for (let run = 0; run < runs; run++) {
      const marker = `crash-${process.pid}-${run}-${Date.now()}`;
      const announceAfter = Math.floor(((run + 0.5) / runs) * (CRASH_ROWS / 100));
      await killMidway(options, marker, announceAfter);
      await options.afterKill?.();

      const storage = await options.reopen();
      try {
        const count = await storage.tables.organizations.count({ name: marker });
        expect([0, CRASH_ROWS]).toContain(count);
      } finally {
        await storage.close();
      }
    }
  });
}

async function killMidway(options: CrashSafetyOptions, marker: string, announceAfter: number): Promise<void> {
  const proc = spawn(process.execPath, ["--conditions=source", "--import", "tsx", child, options.opener, marker, String(announceAfter)], {
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
  const exited = once(proc, "exit");
  const started = new Promise<boolean>((resolve) => {
    proc.stdout.on("data", (data: Buffer) => {
      if (data.toString().includes("started")) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  if (await started) proc.kill("SIGKILL");
  const [code, signal] = await exited;
  if (signal !== "SIGKILL" && code !== 0) throw new Error(`crash child failed (exit ${code}): ${stderr}`);
}
