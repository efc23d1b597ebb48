import { openSync } from "node:fs";
import pino from "pino";

/** Receives each entry as one line of JSON (no trailing newline). */
export type Logger = (line: string) => unknown;

/** A logger that hands lines to a buffered asynchronous writer; `flush` writes what is pending at once. */
export interface BufferedLogger extends Logger {
  flush(): void;
}

/** Characters gathered before they go to the writer: one `write` then carries ~25 request lines. */
const BATCH_LENGTH = 4096;
/** The longest a line waits for a batch to fill before it is written anyway. */
export const LINGER_MS = 100;

/**
 * Lines to a file descriptor (1: stdout) or a file path through pino's destination (sonic-boom).
 * Lines are gathered here and handed over joined, once 4 KiB have gathered or 100 ms after the
 * first of them, so a request pays an array push: sonic-boom's own work per write (byte
 * counts of the line and of its buffer, a string append) and the write itself come once per batch.
 * Whatever is still gathered or buffered when the process exits is written synchronously on `exit`.
 */
export function bufferedLogger(dest: number | string = 1): BufferedLogger {
  // Opened here, synchronously: a path left to sonic-boom opens later, and lines logged before
  // that could not be flushed by a process exiting at once.
  const fd = typeof dest === "number" ? dest : openSync(dest, "a", 0o600);
  // A file is written synchronously, one write per batch (~0.3 µs a line): an asynchronous write
  // still in flight when `flush` writes the rest would land after it, out of order. Stdout may be
  // a pipe whose reader is slow, so it stays asynchronous, as pino writes it.
  const destination = pino.destination({ fd, sync: typeof dest === "string" });
  let gathered: string[] = [];
  let gatheredLength = 0;
  let lingering: NodeJS.Timeout | undefined;
  const handOver = () => {
    if (lingering !== undefined) clearTimeout(lingering);
    lingering = undefined;
    if (gathered.length === 0) return;
    const text = `${gathered.join("\n")}\n`;
    gathered = [];
    gatheredLength = 0;
    destination.write(text);
  };
  const handOverLingering = () => {
    try {
      handOver();
    } catch {
      // Closed: nothing to write to.
    }
  };
  const flush = () => {
    try {
      handOver();
      destination.flushSync();
    } catch {
      // Not open yet (nothing written) or already closed: nothing to flush.
    }
  };
  process.once("exit", flush);
  const log = (line: string) => {
    gathered.push(line);
    gatheredLength += line.length + 1;
    if (gatheredLength >= BATCH_LENGTH) handOver();
    else lingering ??= setTimeout(handOverLingering, LINGER_MS).unref();
  };
  return Object.assign(log, { flush });
}
