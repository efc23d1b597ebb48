import { describe, expect, it } from "vitest";
import { TEXT_PART } from "../src/answers/text-parts.js";
import { answerEtag, contentEtag, etagMatches } from "../src/etag.js";

describe("ETags", () => {
  it("are strong tags of the answer's text", () => {
    expect(contentEtag('{"a":1}')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(contentEtag('{"a":1}')).toBe(contentEtag('{"a":1}'));
    expect(contentEtag('{"a":1}')).not.toBe(contentEtag('{"a":2}'));
  });

  it("of a big answer, hashed in parts, are the tag of the whole text, and tell apart answers differing in a character split across parts", async () => {
    // An emoji (a surrogate pair) straddles the first part's end.
    const big = (emoji: string) => `"${"x".repeat(TEXT_PART - 2)}${emoji}${"y".repeat(TEXT_PART)}"`;
    const smile = big("\u{1F600}");
    expect(await answerEtag(smile)).toBe(contentEtag(smile));
    expect(await answerEtag(smile)).not.toBe(await answerEtag(big("\u{1F601}")));
    expect(answerEtag('{"a":1}')).toBe(contentEtag('{"a":1}'));
  });

  it("matches If-None-Match lists, weak tags and *", () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc", "def"', '"abc"')).toBe(true);
    expect(etagMatches("*", '"abc"')).toBe(true);
    expect(etagMatches('"abd"', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
  });
});
