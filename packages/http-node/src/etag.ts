import { createHash } from "node:crypto";
import { TEXT_PART, textParts, turn } from "./answers/text-parts.js";

/**
 * A strong ETag of a JSON answer's text: it changes exactly when the answer does, whoever asks,
 * since each caller's answer is already narrowed to what it may see.
 */
export const contentEtag = (json: string): string => quoted(createHash("sha256").update(json).digest("base64url"));

/** A strong ETag naming a revision of stored state (core's `revision`): made without the answer's text. */
export const quoted = (revision: string): string => `"${revision}"`;

/**
 * `contentEtag(json)`: at once for an ordinary answer; for a big one (a list of 10,000 secrets,
 * 10–30 ms of hashing) the same tag, hashed in parts with turns for other requests between them.
 */
export function answerEtag(json: string): string | Promise<string> {
  return json.length <= TEXT_PART ? contentEtag(json) : etagInParts(json);
}

async function etagInParts(json: string): Promise<string> {
  const hash = createHash("sha256");
  for (const part of textParts(json)) {
    hash.update(part);
    await turn();
  }
  return `"${hash.digest("base64url")}"`;
}

/** Whether an `If-None-Match` request header names `etag` (RFC 9110 weak comparison; `*` matches). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}
