import { describe, expect, it } from "vitest";
import { MAX_DURATION_MS, parseDuration } from "../../src/permissions/index.js";

describe("parseDuration", () => {
  it.each([
    ["30s", 30_000],
    ["1s", 1_000],
    ["15m", 900_000],
    ["1h", 3_600_000],
    ["24h", 86_400_000],
    ["7d", 604_800_000],
    ["3650d", MAX_DURATION_MS],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "0s", "0d", "-1h", "1", "h", "1.5h", "01h", " 1h", "1h ", "1H", "1w", "1y", "1ms", "1 h", "1h30m", "3651d", "87601h", "99999999999d", "Infinityd"])(
    "rejects %j",
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it("rejects non-strings", () => {
    expect(parseDuration(60 as unknown as string)).toBeUndefined();
  });
});
