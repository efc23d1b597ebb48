import { createHash } from "node:crypto";

/**
 * A strong ETag of a JSON answer's text: it changes exactly when the answer does, whoever asks,
 * since each caller's answer is already narrowed to what it may see.
 */
export const contentEtag = (json: string): string => quoted(createHash("sha256").update(json).digest("base64url"));

/** A strong ETag naming a revision of stored state (core's `revision`): made without the answer's text. */
export const quoted = (revision: string): string => `"${revision}"`;

/** Whether an `If-None-Match` request header names `etag` (RFC 9110 weak comparison; `*` matches). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}
