import { createHash } from "node:crypto";

/**
 * Response headers an operation asks the HTTP adapter to send. They ride on the returned body
 * under a registered symbol: JSON serialization never sees symbol keys, so the body on the wire is
 * unchanged, and an embedder calling the operation directly can still read them.
 */
export const RESPONSE_HEADERS: unique symbol = Symbol.for("strongroom.responseHeaders") as never;

export function withResponseHeaders<T extends object>(body: T, headers: Record<string, string>): T {
  Object.defineProperty(body, RESPONSE_HEADERS, { value: headers, enumerable: false });
  return body;
}

/** Header names are lower-case. */
export function responseHeadersOf(result: unknown): Readonly<Record<string, string>> | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  return (result as { [RESPONSE_HEADERS]?: Record<string, string> })[RESPONSE_HEADERS];
}

/**
 * A strong ETag of a JSON body: it changes exactly when the body's content does, whoever asks,
 * since each caller's body is already filtered to what it may see.
 */
export const contentEtag = (body: unknown): string => `"${createHash("sha256").update(JSON.stringify(body)).digest("base64url")}"`;

/** Whether an `If-None-Match` request header names `etag` (RFC 9110 weak comparison; `*` matches). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}
