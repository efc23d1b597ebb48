import { describe, expect, it } from "vitest";
import { contentEtag, etagMatches } from "../src/etag.js";

describe("ETags", () => {
  it("are strong tags of the answer's text", () => {
    expect(contentEtag('{"a":1}')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(contentEtag('{"a":1}')).toBe(contentEtag('{"a":1}'));
    expect(contentEtag('{"a":1}')).not.toBe(contentEtag('{"a":2}'));
  });

  it("matches If-None-Match lists, weak tags and *", () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc", "def"', '"abc"')).toBe(true);
    expect(etagMatches("*", '"abc"')).toBe(true);
    expect(etagMatches('"abd"', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
  });
});
