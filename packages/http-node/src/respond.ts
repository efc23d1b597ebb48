import type { ServerResponse } from "node:http";
import { TEXT_PART, textParts, turn } from "./answers/text-parts.js";
import type { ErrorResponse } from "./error-body.js";

/** API answers can carry secrets: no cache may keep them, no browser may reinterpret them. */
const JSON_HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
} as const;

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, status, value === undefined ? "{}" : JSON.stringify(value), headers);
}

export function sendError(res: ServerResponse, error: ErrorResponse, extraHeaders: Record<string, string> = {}): void {
  sendJsonText(res, error.status, JSON.stringify(error.body), { ...error.headers, ...extraHeaders });
}

/** `text` is already JSON (cached documents), as a string or its UTF-8 bytes. */
export function sendJsonText(res: ServerResponse, status: number, text: string | Buffer, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  writeJsonHead(res, status, text, headers);
  res.end(text);
}

/**
 * `sendJsonText`, a big text (a list of 10,000 secrets) written a part at a time with turns for
 * other requests between parts: encoding and copying megabytes into the socket in one call holds
 * the event loop for tens of milliseconds.
 */
export async function sendJsonAnswer(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): Promise<void> {
  if (text.length <= TEXT_PART) return sendJsonText(res, status, text, headers);
  if (res.headersSent || res.destroyed) return;
  writeJsonHead(res, status, text, headers);
  for (const part of textParts(text)) {
    if (res.destroyed) return;
    res.write(part);
    await turn();
  }
  res.end();
}

function writeJsonHead(res: ServerResponse, status: number, text: string | Buffer, headers: Record<string, string>): void {
  // Assigned one by one: V8 adds the fields that follow a spread through a slow path.
  const all: Record<string, string> = Object.assign({}, JSON_HEADERS);
  all["content-length"] = String(Buffer.byteLength(text));
  for (const name in headers) all[name] = headers[name];
  res.writeHead(status, all);
}

/** A file answer of a core operation (`fileOutput`): its media type and its bytes in base64. */
export interface FileAnswer {
  contentType: string;
  base64: string;
}

function isFileAnswer(value: unknown): value is FileAnswer {
  const file = value as Partial<FileAnswer> | null;
  return typeof file?.contentType === "string" && typeof file.base64 === "string";
}

/** Sends a file answer as its bytes. Files served this way are public documents (a CRL), yet nothing may sniff them. */
export function sendFile(res: ServerResponse, status: number, value: unknown): void {
  if (!isFileAnswer(value)) throw new Error("the operation did not return a file");
  if (res.headersSent || res.destroyed) return;
  const bytes = Buffer.from(value.base64, "base64");
  res.writeHead(status, {
    "content-type": value.contentType,
    "content-length": String(bytes.length),
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
  });
  res.end(bytes);
}
