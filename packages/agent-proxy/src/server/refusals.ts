import { STATUS_CODES, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

/**
 * What the agent receives when the proxy does not forward its request: a JSON body in the
 * server's error style, saying why (`reason`) and naming the host it concerns.
 */
export interface Refusal {
  readonly status: number;
  /** Machine-readable, also the `reason` of the request log line. */
  readonly reason: string;
  readonly message: string;
  readonly host?: string;
}

const ERROR_NAMES: Record<number, string> = {
  400: "BadRequest",
  403: "PermissionDenied",
  404: "NotFound",
  407: "ProxyAuthenticationRequired",
  408: "RequestTimeout",
  413: "PayloadTooLarge",
  429: "RateLimitExceeded",
  502: "BadGateway",
  503: "ServiceUnavailable",
  504: "GatewayTimeout",
};

const LINGER_MS = 1_000;

function bodyOf(refusal: Refusal): string {
  const { status, reason, message, host } = refusal;
  return JSON.stringify({ statusCode: status, error: ERROR_NAMES[status] ?? STATUS_CODES[status] ?? "Error", reason, message, ...(host ? { host } : {}) });
}

export function sendRefusal(res: ServerResponse, refusal: Refusal, headers: Record<string, string | string[]> = {}): void {
  // Once the upstream's answer has started, a refusal cannot be written: the agent sees the cut.
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = bodyOf(refusal);
  res.writeHead(refusal.status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/**
 * For a CONNECT, which has no ServerResponse, and for a connection that timed out waiting for
 * headers: the answer is written on the socket and its side closed; the socket is destroyed a
 * moment later, so an agent that never closes its own side cannot keep it half open. (Destroying
 * at once could reset the connection before the agent has read the answer.)
 */
export function writeRawRefusal(socket: Duplex, refusal: Refusal, headers: Record<string, string | string[]> = {}): void {
  const body = bodyOf(refusal);
  const lines = [`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ""}`];
  for (const [name, value] of Object.entries(headers)) for (const item of [value].flat()) lines.push(`${name}: ${item}`);
  lines.push("content-type: application/json", `content-length: ${Buffer.byteLength(body)}`, "connection: close");
  if (socket.destroyed) return;
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
