import { createHash } from "node:crypto";

/**
 * A strong ETag of a JSON answer's text: it changes exactly when the answer does, whoever asks,
 * since each caller's answer is already narrowed to what it may see.
 */
export const contentEtag = (json: string): string => `"${createHash("sha256").update(json).digest("base64url")}"`;

/** Answers longer than this (UTF-16 units) are hashed a part at a time, other requests served between parts. */
export const ETAG_PART = 256 * 1024;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `contentEtag(json)`: at once for an ordinary answer; for a big one (a list of 10,000 secrets,
 * 10–30 ms of hashing) the same tag, hashed in parts with turns for other requests between them.
 */
export function answerEtag(json: string): string | Promise<string> {
  return json.length <= ETAG_PART ? contentEtag(json) : etagInParts(json);
}

async function etagInParts(json: string): Promise<string> {
  const hash = createHash("sha256");
  for (let from = 0; from < json.length; ) {
    let to = Math.min(json.length, from + ETAG_PART);
    // Never between the halves of a surrogate pair: the parts' UTF-8 then adds up to the whole's.
    const last = json.charCodeAt(to - 1);
    if (to < json.length && last >= 0xd800 && last <= 0xdbff) to++;
    hash.update(json.slice(from, to));
    from = to;
    if (from < json.length) await turn();
  }
  return `"${hash.digest("base64url")}"`;
}

/** Whether an `If-None-Match` request header names `etag` (RFC 9110 weak comparison; `*` matches). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}
