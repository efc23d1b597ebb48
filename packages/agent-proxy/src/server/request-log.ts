/**
 * One JSON line per agent request: where it went and what was decided, never a header, a body, a
 * path, a token or a credential value.
 */
export type ProxyLogger = (line: string) => unknown;

export interface RequestLogEntry {
  level: "info";
  time: string;
  msg: "request";
  method: string;
  host: string | null;
  port: number | null;
  tls: boolean;
  /** The server's decision; `deny` also for what the proxy refuses itself (see `reason`). */
  action: "broker" | "passthrough" | "deny";
  reason: string;
  status: number;
  durationMs: number;
  /** The agent session's id (never its token), once known. */
  session: string | null;
  /** The proxied service a broker decision named. */
  service?: string;
  /** What went wrong after the decision (the upstream could not be reached, for example). */
  error?: string;
}

export interface EventLogEntry {
  level: "info" | "warn" | "error";
  time: string;
  msg: string;
  [detail: string]: unknown;
}

export const stdoutLogger: ProxyLogger = (line) => process.stdout.write(`${line}\n`);

export function entryWriter(logger: ProxyLogger): (entry: Omit<RequestLogEntry, "time"> | Omit<EventLogEntry, "time">) => void {
  return (entry) => {
    try {
      const time = new Date().toISOString();
      logger(entry.msg === "request" ? requestLine(time, entry as Omit<RequestLogEntry, "time">) : JSON.stringify({ time, ...entry }));
    } catch {
      // A broken logger must not take a request down with it.
    }
  };
}

const text = (value: string | null): string => (value === null ? "null" : JSON.stringify(value));
const number = (value: number | null): string => (value !== null && Number.isFinite(value) ? String(value) : "null");

/**
 * The request line built by hand, as the server's adapter does: one per agent request, and
 * JSON.stringify of a spread entry costs more than the rest of the log path. Strings are escaped;
 * the optional fields appear only when set.
 */
function requestLine(time: string, e: Omit<RequestLogEntry, "time">): string {
  const service = e.service === undefined ? "" : `,"service":${text(e.service)}`;
  const error = e.error === undefined ? "" : `,"error":${text(e.error)}`;
  return (
    `{"time":"${time}","level":"info","msg":"request","method":${text(e.method)},"host":${text(e.host)},"port":${number(e.port)},` +
    `"tls":${e.tls === true},"action":${text(e.action)},"reason":${text(e.reason)},"session":${text(e.session)}${service}${error},"status":${number(e.status)},"durationMs":${number(e.durationMs)}}`
  );
}
