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
  413: "PayloadTooLarge",
  502: "BadGateway",
  504: "GatewayTimeout",
};

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

/** For a CONNECT, which has no ServerResponse: the answer is written on the socket, which then closes. */
export function writeRawRefusal(socket: Duplex, refusal: Refusal, headers: Record<string, string | string[]> = {}): void {
  const body = bodyOf(refusal);
  const lines = [`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ""}`];
  for (const [name, value] of Object.entries(headers)) for (const item of [value].flat()) lines.push(`${name}: ${item}`);
  lines.push("content-type: application/json", `content-length: ${Buffer.byteLength(body)}`, "connection: close");
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
}
