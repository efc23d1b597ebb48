import { bufferedLogger, type Logger } from "./log-writer.js";

/** One line per request. Deliberately has no room for headers, bodies, query strings or tokens. */
export interface RequestLogEntry {
  level: "info";
  time: string;
  reqId: string;
  method: string;
  /** The route template (`/api/v1/projects/{projectId}`), or null when nothing matched. */
  route: string | null;
  status: number;
  durationMs: number;
}

/** An error the client saw only as a generic 500 (or an event stream that broke). */
export interface ErrorLogEntry {
  level: "error";
  time: string;
  reqId: string;
  method: string;
  route: string | null;
  msg: string;
  error: { name: string; message: string; stack?: string };
}

/** Something about the adapter's own set-up worth knowing (e.g. a route whose operation is missing). */
export interface WarnLogEntry {
  level: "warn";
  time: string;
  msg: string;
  [key: string]: unknown;
}

export type LogEntry = RequestLogEntry | ErrorLogEntry | WarnLogEntry;

export type { Logger } from "./log-writer.js";

let stdoutLogger: Logger | undefined;

/** JSON lines on stdout, through a buffered asynchronous writer (created on first use). */
export const jsonLinesLogger: Logger = (line) => {
  stdoutLogger ??= bufferedLogger(1);
  return stdoutLogger(line);
};

export const silentLogger: Logger = () => undefined;

/**
 * The request line built by hand: JSON.stringify of the whole entry costs more than the rest of
 * the log path. Only the strings are escaped; the keys and their order are those of the entry.
 */
export function requestLine(entry: RequestLogEntry): string {
  const route = entry.route === null ? "null" : JSON.stringify(entry.route);
  return `{"level":"info","time":"${entry.time}","reqId":${JSON.stringify(entry.reqId)},"method":${JSON.stringify(entry.method)},"route":${route},"status":${entry.status},"durationMs":${entry.durationMs}}`;
}

/** Serializes entries for a logger; a logger that throws must not take a request down with it. */
export function entryWriter(logger: Logger): (entry: LogEntry) => void {
  return (entry) => {
    try {
      logger(entry.level === "info" ? requestLine(entry) : JSON.stringify(entry));
    } catch {
      // Nowhere left to report a broken logger.
    }
  };
}

/**
 * What may be logged of an unexpected error: name, message and stack, with every given secret
 * (the request's bearer token) cut out in case a driver echoed it into its message.
 */
export function describeError(thrown: unknown, secrets: readonly string[]): ErrorLogEntry["error"] {
  const scrub = (text: string) => secrets.reduce((out, secret) => (secret ? out.split(secret).join("[redacted]") : out), text);
  if (thrown instanceof Error) {
    return { name: thrown.name, message: scrub(thrown.message), stack: thrown.stack && scrub(thrown.stack) };
  }
  return { name: typeof thrown, message: scrub(String(thrown)) };
}
