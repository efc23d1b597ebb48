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

// Runs in the worker (CommonJS): opens the file, asks for at most 10 problems, reports them.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.filename, { fileMustExist: true });
  const rows = db.pragma("quick_check(10)");
  // One row may hold several lines ("*** in database main ***" then a line per problem): one problem each.
  const lines = rows.flatMap((row) => String(Object.values(row)[0]).split("\\n"));
  parentPort.postMessage(lines.map((line) => line.trim()).filter((line) => line !== "" && line !== "ok"));
} catch (error) {
  parentPort.postMessage([error.code ? error.code + ": " + error.message : String(error.message || error)]);
} finally {
  if (db) db.close();
}`;

/**
 * SQLite's `quick_check` of a database file: every page and b-tree is walked (a damaged file is
 * found) but indexes are not compared with their tables, which keeps it linear in the file's size.
 * It runs in a worker thread so it can be bounded: past `timeoutMs` the worker is stopped and
 * the outcome is `unchecked` (a very large file starts without the check rather than not at all).
 */
export async function quickCheck(filename: string, timeoutMs = QUICK_CHECK_TIMEOUT_MS): Promise<QuickCheckOutcome> {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { filename, driver } });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<QuickCheckOutcome>((resolve, reject) => {
      timer = setTimeout(() => resolve({ status: "unchecked" }), timeoutMs);
      worker.once("message", (problems: string[]) => resolve(problems.length === 0 ? { status: "ok" } : { status: "damaged", problems }));
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the database check stopped unexpectedly (exit code ${code})`)));
    });
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
