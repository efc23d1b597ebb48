import type { AuditEntry } from "./schemas.js";

/** How far a sink is behind what the log has committed. */
export interface AuditSinkLag {
  /** Entries handed to the sink and not yet delivered. */
  readonly pending: number;
  /** `createdAt` of the oldest undelivered entry, or null when none is waiting. */
  readonly oldestPendingAt: string | null;
  /** Entries dropped because the sink's bounded buffer was full (they stay in the database). */
  readonly dropped: number;
}

/**
 * Where committed entries are streamed (a JSON-lines file, a webhook: `audit/sinks/`). `write`
 * receives entries in their public form — metadata opened, never a value, token or password —
 * in commit order per chain, after they are durable in the database. A sink buffers and delivers
 * on its own: the log never waits on `write` beyond handing the batch over, so a slow sink only
 * grows its own lag; what it cannot hold it drops and counts.
 */
export interface AuditSink {
  readonly name: string;
  write(entries: readonly AuditEntry[]): Promise<void>;
  lag(): AuditSinkLag;
  /** Flushes what it can and stops. */
  close?(): Promise<void>;
}
