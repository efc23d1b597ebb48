import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { newRequestId } from "./request-id.js";

/** Parser failures node:http raises before any request exists, and the status each one gets. */
const STATUS_BY_CODE: Record<string, { status: number; error: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, error: "RequestHeaderFieldsTooLarge", message: "Request headers are too large" },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, error: "RequestTimeout", message: "The request took too long to arrive" },
};
const MALFORMED = { status: 400, error: "BadRequest", message: "Malformed HTTP request" };

/**
 * `clientError` listener for a node:http server: answers requests the HTTP parser rejected (bad
 * syntax, oversized headers, too slow) with the usual JSON error body, then closes the socket.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // Mid-response (a pipelined request) or already gone: no room for an answer on this socket.
  if (!socket.writable || error.code === "ECONNRESET" || (socket as { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const { status, error: name, message } = STATUS_BY_CODE[error.code ?? ""] ?? MALFORMED;
  const reqId = newRequestId();
  const body = JSON.stringify({ reqId, statusCode: status, message, error: name });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      "content-type: application/json; charset=utf-8\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${reqId}\r\n` +
      "connection: close\r\n\r\n" +
      body,
  );
}
