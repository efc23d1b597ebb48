import { openSync } from "node:fs";
import pino from "pino";

/** Receives each entry as one line of JSON (no trailing newline). */
export type Logger = (line: string) => unknown;

/** A logger that hands lines to a buffered asynchronous writer; `flush` writes what is pending at once. */
export interface BufferedLogger extends Logger {
  flush(): void;
}

/**
 * Lines to a file descriptor (1: stdout) or a file path through pino's asynchronous destination
 * (sonic-boom): a line is appended to a buffer and written by one `write` per batch while the
 * previous batch is in flight, so a request pays a string append instead of a blocking write
 * syscall (~10 µs when stdout is a file or a pipe). Whatever is still buffered when the process
 * exits is written synchronously on `exit`.
 */
export function bufferedLogger(dest: number | string = 1): BufferedLogger {
  // Opened here, synchronously: a path left to sonic-boom opens later, and lines logged before
  // that could not be flushed by a process exiting at once.
  const fd = typeof dest === "number" ? dest : openSync(dest, "a", 0o600);
  const destination = pino.destination({ fd, sync: false });
  const flush = () => {
    try {
      destination.flushSync();
    } catch {
      // Not open yet (nothing written) or already closed: nothing to flush.
    }
  };
  process.once("exit", flush);
  return Object.assign((line: string) => destination.write(`${line}\n`), { flush });
}
