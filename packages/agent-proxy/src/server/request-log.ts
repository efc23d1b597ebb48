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
      logger(JSON.stringify({ time: new Date().toISOString(), ...entry }));
    } catch {
      // A broken logger must not take a request down with it.
    }
  };
}
