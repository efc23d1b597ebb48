import { describe, expect, it } from "vitest";
import { lastSeqToCut, retentionCutoff } from "../../src/audit/jobs/retention-cut.js";

const now = new Date("2026-06-30T12:00:00.000Z");

describe("retention cutoff", () => {
  it.each([
    [30, "2026-05-31T12:00:00.000Z"],
    [1, "2026-06-29T12:00:00.000Z"],
    [365, "2025-06-30T12:00:00.000Z"],
  ])("%i days before %s", (days, expected) => {
    expect(retentionCutoff(now, days)?.toISOString()).toBe(expected);
  });

  it.each([0, -1, Number.NaN])("keeps everything for %d days", (days) => {
    expect(retentionCutoff(now, days)).toBeUndefined();
  });
});

describe("the prefix retention cuts", () => {
  const cutoff = new Date("2026-05-31T12:00:00.000Z");
  const at = (day: string) => `2026-05-${day}T00:00:00.000Z`;
  it.each([
    { title: "nothing stored", entries: [], cut: undefined },
    { title: "all newer", entries: [{ seq: 1, createdAt: "2026-06-01T00:00:00.000Z" }], cut: undefined },
    { title: "all older", entries: [{ seq: 4, createdAt: at("01") }, { seq: 5, createdAt: at("02") }], cut: 5 },
    {
      title: "older then newer",
      entries: [{ seq: 1, createdAt: at("01") }, { seq: 2, createdAt: at("30") }, { seq: 3, createdAt: "2026-06-02T00:00:00.000Z" }],
      cut: 2,
    },
    {
      title: "a newer entry before an older one (skewed clocks): stops at the newer",
      entries: [{ seq: 1, createdAt: at("01") }, { seq: 2, createdAt: "2026-05-31T12:00:00.001Z" }, { seq: 3, createdAt: at("30") }],
      cut: 1,
    },
    { title: "exactly at the cutoff is kept", entries: [{ seq: 1, createdAt: cutoff.toISOString() }], cut: undefined },
  ])("$title", ({ entries, cut }) => {
    expect(lastSeqToCut(entries, cutoff)).toBe(cut);
  });
});
