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
 */
export class SqliteWriter {
  private readonly pending = new Map<number, { resolve(result: WriterResult): void; reject(error: unknown): void }>();
  private nextId = 0;
  private stopped: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on("message", (reply: Reply) => this.settle(reply));
    worker.on("error", (error) => this.stop(error));
    worker.on("exit", () => this.stop(new Error("the database writer thread stopped")));
    // Idle, the writer does not keep the process alive (a connection did not); a statement under way does.
    worker.unref();
  }

  /** Opens `filename` (WAL mode, foreign keys on) in a new writer thread. */
  static async open(filename: string): Promise<SqliteWriter> {
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
    return new SqliteWriter(worker);
  }

  execute(sql: string, parameters: readonly unknown[]): Promise<WriterResult> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise<WriterResult>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, sql, parameters });
    });
  }

  /** Closes the connection (after the statements already sent) and ends the thread. */
  async close(): Promise<void> {
    if (this.stopped) return;
    const exited = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()));
    this.worker.ref();
    this.worker.postMessage({ close: true });
    await exited;
  }

  private settle(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
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
