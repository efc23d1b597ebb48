import { stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** How long a start-up check may take before the file is let through unchecked. */
export const QUICK_CHECK_TIMEOUT_MS = 10_000;

export type QuickCheckOutcome =
  | { readonly status: "ok" }
  /** SQLite found damage, or the file is not a database: the problems as SQLite words them. */
  | { readonly status: "damaged"; readonly problems: readonly string[] }
  /** The check ran past its bound and was stopped: nothing is known either way. */
  | { readonly status: "unchecked" };

/**
 * Files up to this size are checked in the calling thread: a worker (a second isolate, ~30 ms of
 * CPU and a few MB that stay resident after it exits) costs more than checking them, and their
 * check ends in well under a second, so the bound is not needed (issue #22).
 */
export const CHECK_HERE_BYTES = 32 * 1024 * 1024;

/**
 * The check itself: opens the file, asks for at most 10 problems, returns them. It runs in the
 * calling thread or, as its own source text, in the worker: it uses nothing from outside itself.
 */
function problemsOf(Database: typeof import("better-sqlite3"), filename: string): string[] {
  let db: import("better-sqlite3").Database | undefined;
  try {
    db = new Database(filename, { fileMustExist: true });
    const rows = db.pragma("quick_check(10)") as Record<string, unknown>[];
    // One row may hold several lines ("*** in database main ***" then a line per problem): one problem each.
    const lines = rows.flatMap((row) => String(Object.values(row)[0]).split("\n"));
    return lines.map((line) => line.trim()).filter((line) => line !== "" && line !== "ok");
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    return [code ? code + ": " + message : String(message || error)];
  } finally {
    db?.close();
  }
}

// The worker (CommonJS) runs the same check and posts its problems.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
parentPort.postMessage((${problemsOf.toString()})(require(workerData.driver), workerData.filename));`;

const outcomeOf = (problems: string[]): QuickCheckOutcome => (problems.length === 0 ? { status: "ok" } : { status: "damaged", problems });

/**
 * SQLite's `quick_check` of a database file: every page and b-tree is walked (a damaged file is
 * found) but indexes are not compared with their tables, which keeps it linear in the file's size.
 * Past `CHECK_HERE_BYTES` it runs in a worker thread so it can be bounded: past `timeoutMs` the
 * worker is stopped and the outcome is `unchecked` (a very large file starts without the check
 * rather than not at all).
 */
export async function quickCheck(filename: string, timeoutMs = QUICK_CHECK_TIMEOUT_MS, checkHereBytes = CHECK_HERE_BYTES): Promise<QuickCheckOutcome> {
  const size = await stat(filename).then((found) => found.size, () => undefined);
  if (size !== undefined && size <= checkHereBytes) return outcomeOf(problemsOf((await import("better-sqlite3")).default, filename));
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { filename, driver } });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<QuickCheckOutcome>((resolve, reject) => {
      timer = setTimeout(() => resolve({ status: "unchecked" }), timeoutMs);
      worker.once("message", (problems: string[]) => resolve(outcomeOf(problems)));
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the database check stopped unexpectedly (exit code ${code})`)));
    });
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
