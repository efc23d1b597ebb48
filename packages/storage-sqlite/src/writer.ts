import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { WRITER_THREAD_SOURCE } from "./writer-thread.js";

/** What the writer answers for one statement: a read's rows, or a write's counts. */
export type WriterResult = { rows: Record<string, unknown>[] } | { changes: number; lastInsertRowid: number | bigint };

type Reply = { id: number; error?: { message: string; code?: string } } & Partial<{ rows: Record<string, unknown>[]; changes: number; lastInsertRowid: number | bigint }>;

/** A driver error as better-sqlite3 raises it (its `code` is what the dialect decides on). */
function sqliteError(error: { message: string; code?: string }): Error {
  return Object.assign(new Error(error.message), { name: "SqliteError", code: error.code });
}

/**
 * The connection every write and transaction of a SQLite storage runs on, in a worker thread
 * (writer-thread.ts): a transaction of thousands of rows, and its commit, take the worker's
 * time, not the event loop's. Statements run in the order they are sent; callers take turns
 * (the Kysely driver's mutex), so a transaction's statements never interleave with another's.
 *
 * The thread starts with the first statement, not with the storage: a worker is a second V8
 * isolate and Node environment (~14 MB resident, ~30 ms to boot), which a server that only reads
 * (or has not written yet since it started) does without (issue #22).
 */
export class SqliteWriter {
  private readonly pending = new Map<number, { resolve(result: WriterResult): void; reject(error: unknown): void }>();
  private nextId = 0;
  private stopped: Error | undefined;
  private closing = false;
  private thread: Promise<Worker> | undefined;

  constructor(private readonly filename: string) {}

  execute(sql: string, parameters: readonly unknown[]): Promise<WriterResult> {
    if (this.stopped) return Promise.reject(this.stopped);
    if (this.closing) return Promise.reject(new Error("the database writer was closed"));
    // Callbacks on one promise run in the order they were added: statements are posted in the order they came.
    return this.started().then(
      (worker) =>
        new Promise<WriterResult>((resolve, reject) => {
          if (this.stopped) return reject(this.stopped);
          const id = this.nextId++;
          if (this.pending.size === 0) worker.ref();
          this.pending.set(id, { resolve, reject });
          worker.postMessage({ id, sql, parameters });
        }),
    );
  }

  /** Closes the connection (after the statements already sent) and ends the thread, if it started. */
  async close(): Promise<void> {
    if (this.stopped || this.closing) return;
    this.closing = true;
    // Statements sent while the thread was starting are posted before the close.
    const worker = await this.thread?.catch(() => undefined);
    if (!worker || this.stopped) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.ref();
    worker.postMessage({ close: true });
    await exited;
  }

  /** The thread, started on first use; a failed start is tried again by the next statement. */
  private started(): Promise<Worker> {
    this.thread ??= openThread(this.filename).then(
      (worker) => {
        worker.on("message", (reply: Reply) => this.settle(worker, reply));
        worker.on("error", (error) => this.stop(error));
        worker.on("exit", () => this.stop(new Error("the database writer thread stopped")));
        // Idle, the writer does not keep the process alive (a connection did not); a statement under way does.
        worker.unref();
        return worker;
      },
      (error: unknown) => {
        this.thread = undefined;
        throw error;
      },
    );
    return this.thread;
  }

  private settle(worker: Worker, reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) worker.unref();
    if (reply.error) waiting.reject(sqliteError(reply.error));
    else if (reply.rows) waiting.resolve({ rows: reply.rows });
    else waiting.resolve({ changes: reply.changes ?? 0, lastInsertRowid: reply.lastInsertRowid ?? 0 });
  }

  private stop(error: Error): void {
    this.stopped ??= error;
    for (const waiting of this.pending.values()) waiting.reject(this.stopped);
    this.pending.clear();
  }
}

/** Opens `filename` (WAL mode, foreign keys on) in a new writer thread, once it says it is ready. */
async function openThread(filename: string): Promise<Worker> {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WRITER_THREAD_SOURCE, { eval: true, workerData: { filename, driver } });
  let ready!: (message: { ready: boolean; error?: { message: string; code?: string } }) => void;
  let failed!: (error: Error) => void;
  let exited!: (code: number) => void;
  try {
    await new Promise<void>((resolve, reject) => {
      ready = (message) => (message.ready ? resolve() : reject(sqliteError(message.error ?? { message: "the database could not be opened" })));
      failed = reject;
      exited = (code) => reject(new Error(`the database writer thread stopped while opening (exit code ${code})`));
      worker.once("message", ready).once("error", failed).once("exit", exited);
    });
  } catch (error) {
    await worker.terminate();
    throw error;
  } finally {
    worker.off("message", ready).off("error", failed).off("exit", exited);
  }
  return worker;
}
