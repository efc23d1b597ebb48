import { openSync } from "node:fs";
import pino from "pino";

/** Receives each entry as one line of JSON (no trailing newline). */
export type Logger = (line: string) => unknown;

/** A logger that hands lines to a buffered asynchronous writer; `flush` writes what is pending at once. */
export interface BufferedLogger extends Logger {
  flush(): void;
}

/** Bytes gathered before a write: one `write` then carries ~25 request lines. */
const BATCH_BYTES = 4096;
/** The longest a line waits for a batch to fill before it is written anyway. */
export const LINGER_MS = 100;

/**
 * Lines to a file descriptor (1: stdout) or a file path through pino's asynchronous destination
 * (sonic-boom): a line is appended to a buffer, written once 4 KiB have gathered or 100 ms after
 * it came, whichever is first, so a request pays a string append instead of a write (a blocking
 * syscall of ~10 µs, or a hand-over to libuv's thread pool and back when asynchronous). Whatever
 * is still buffered when the process exits is written synchronously on `exit`.
 */
export function bufferedLogger(dest: number | string = 1): BufferedLogger {
  // Opened here, synchronously: a path left to sonic-boom opens later, and lines logged before
  // that could not be flushed by a process exiting at once.
  const fd = typeof dest === "number" ? dest : openSync(dest, "a", 0o600);
  const destination = pino.destination({ fd, sync: false, minLength: BATCH_BYTES });
  const flush = () => {
    try {
      destination.flushSync();
    } catch {
      // Not open yet (nothing written) or already closed: nothing to flush.
    }
  };
  let lingering: NodeJS.Timeout | undefined;
  const writeLingering = () => {
    lingering = undefined;
    try {
      destination.flush();
    } catch {
      // Closed: nothing to write to.
    }
  };
  process.once("exit", flush);
  const log = (line: string) => {
    const written = destination.write(`${line}\n`);
    // Armed by the first line after a write, not by every line: one timer per batch at most.
    lingering ??= setTimeout(writeLingering, LINGER_MS).unref();
    return written;
  };
  return Object.assign(log, { flush });
}
