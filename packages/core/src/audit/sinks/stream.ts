import type { AuditEntry } from "../schemas.js";
import { retryDelayMs, type BackoffOptions } from "./backoff.js";

/**
 * Where a sink stands, for operators and metrics: how far behind it is and what it lost. The
 * database keeps every entry whatever a sink does; a sink's gaps can be filled from the query API.
 */
export interface SinkLag {
  sink: string;
  /** Entries accepted and not yet delivered. */
  pending: number;
  /** When the oldest pending entry was handed to the sink (ISO 8601); null when nothing is pending. */
  oldestPendingAt: string | null;
  /** The most entries the sink holds; past it, new entries are dropped, never waited for. */
  capacity: number;
  /** Entries delivered since the sink started. */
  delivered: number;
  /** Entries not delivered because the buffer was full (or the sink closed before it could deliver them). */
  dropped: number;
  /** How long the oldest pending entry has waited, ms; 0 when nothing is pending. */
  lagMs: number;
  /** Failed attempts in a row at the batch now at the head (0 when the last attempt succeeded). */
  failures: number;
  /** The last delivery error's message, cleared by the next success. */
  lastError?: string;
  /** When the last batch was delivered (ISO 8601). */
  lastDeliveredAt?: string;
}

/** Where a sink's batches go: a file, a webhook. Throws when a batch was not delivered; it is tried again. */
export interface SinkTransport {
  /** Delivers the batch (one JSON document per entry, without line ends), all or nothing as far as the sink can tell. */
  deliver(lines: readonly string[]): Promise<void>;
  close?(): Promise<void>;
}

/**
 * A stream of audit entries to somewhere outside the database, fed after entries are recorded
 * (the shape of the audit log's `AuditSink`, with a fuller `lag`).
 */
export interface BufferedSink<E = AuditEntry> {
  readonly name: string;
  /**
   * Queues the entries and resolves at once, whatever the transport is doing; never rejects.
   * What does not fit in the buffer is dropped (see `lag().dropped`).
   */
  write(entries: readonly E[]): Promise<void>;
  lag(): SinkLag;
  /** Waits until every entry accepted so far is delivered, at most `timeoutMs`; true when it was. */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Stops accepting entries, delivers what is pending for at most `timeoutMs`, then lets go of the transport. */
  close(timeoutMs?: number): Promise<void>;
}

export interface SinkOptions<E> {
  name: string;
  /** Entries held at most (default 10,000). */
  capacity?: number;
  /** Entries per delivery at most (default 500). */
  batchSize?: number;
  backoff?: BackoffOptions;
  /** One entry as one line of JSON (default `JSON.stringify`). */
  serialize?: (entry: E) => string;
  /** Told about failed deliveries (message only: entries never go to the log). */
  onError?: (sink: string, error: unknown) => void;
  /** Milliseconds clock for the lag figure (default `Date.now`). */
  now?: () => number;
}

interface Pending<E> {
  entry: E;
  at: number;
}

/**
 * A bounded in-memory buffer in front of a transport, drained by one delivery loop: writers
 * never wait for the transport, a failed batch stays at the head and is retried with backoff, so
 * entries reach the transport in the order they were written, and a transport that is stuck or
 * down costs at most `capacity` entries of memory.
 */
export function createSink<E = AuditEntry>(transport: SinkTransport, options: SinkOptions<E>): BufferedSink<E> {
  const capacity = options.capacity ?? 10_000;
  const batchSize = options.batchSize ?? 500;
  const serialize = options.serialize ?? ((entry: E) => JSON.stringify(entry));
  const now = options.now ?? Date.now;

  // A queue as an array and a head index: taking a batch off is O(batch), not O(queue).
  let queue: Pending<E>[] = [];
  let head = 0;
  let delivered = 0;
  let dropped = 0;
  let failures = 0;
  let lastError: string | undefined;
  let lastDeliveredAt: number | undefined;
  let pumping = false;
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  let stopped = false;
  let wake: (() => void) | undefined;
  let idle: (() => void)[] = [];

  const pending = () => queue.length - head;
  const report = (error: unknown) => {
    try {
      options.onError?.(options.name, error);
    } catch {
      // A failing error reporter must not stop the delivery loop.
    }
  };

  /** Waits `ms`, or less when `close` gives up on the transport. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  const pump = async () => {
    while (pending() > 0 && !stopped) {
      const batch = queue.slice(head, head + batchSize);
      let lines: string[];
      try {
        lines = batch.map((item) => serialize(item.entry));
      } catch (error) {
        // An entry that cannot be written as JSON never will be: skip it rather than stall the stream.
        head += batch.length;
        dropped += batch.length;
        lastError = `entries could not be serialized: ${messageOf(error)}`;
        report(error);
        continue;
      }
      try {
        await transport.deliver(lines);
        if (stopped) break;
        head += batch.length;
        delivered += batch.length;
        failures = 0;
        lastError = undefined;
        lastDeliveredAt = now();
        if (head > 1024 && head * 2 > queue.length) {
          queue = queue.slice(head);
          head = 0;
        }
      } catch (error) {
        failures += 1;
        lastError = messageOf(error);
        report(error);
        if (!stopped) await pause(retryDelayMs(failures, options.backoff));
      }
    }
    pumping = false;
    const waiting = idle;
    idle = [];
    for (const resolve of waiting) resolve();
  };

  const start = () => {
    if (pumping || stopped) return;
    pumping = true;
    // Entries written in the same turn of the event loop go out as one batch.
    running = new Promise((resolve) => setImmediate(() => pump().then(resolve)));
  };

  const drained = (timeoutMs: number): Promise<boolean> => {
    if (pending() === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(pending() === 0), timeoutMs);
      timer.unref();
      idle.push(() => {
        clearTimeout(timer);
        resolve(pending() === 0);
      });
    });
  };

  return {
    name: options.name,
    write(entries) {
      const at = now();
      for (const entry of entries) {
        if (closed || pending() >= capacity) dropped += 1;
        else queue.push({ entry, at });
      }
      if (pending() > 0) start();
      return Promise.resolve();
    },
    lag() {
      const oldest = pending() > 0 ? queue[head].at : undefined;
      return {
        sink: options.name,
        pending: pending(),
        oldestPendingAt: oldest === undefined ? null : new Date(oldest).toISOString(),
        capacity,
        delivered,
        dropped,
        lagMs: oldest === undefined ? 0 : Math.max(0, now() - oldest),
        failures,
        ...(lastError !== undefined ? { lastError } : {}),
        ...(lastDeliveredAt !== undefined ? { lastDeliveredAt: new Date(lastDeliveredAt).toISOString() } : {}),
      };
    },
    flush: (timeoutMs = 10_000) => drained(timeoutMs),
    async close(timeoutMs = 5_000) {
      if (closed) return;
      closed = true;
      await drained(timeoutMs);
      stopped = true;
      wake?.();
      // The transport lets go first (a webhook aborts a request in flight), then the loop ends.
      await transport.close?.();
      await running;
      dropped += pending();
      queue = [];
      head = 0;
    },
  };
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
