import { describe, expect, it } from "vitest";
import { retryDelayMs } from "../../../src/audit/sinks/backoff.js";
import { planWrites } from "../../../src/audit/sinks/file-sink.js";

describe("retry backoff", () => {
  it.each([
    // failures, random, delay (base 500, cap 60 s)
    [1, 0, 250],
    [1, 0.999999, 500],
    [2, 0, 500],
    [3, 0.5, 1500],
    [8, 0, 30_000],
    [9, 0, 30_000],
    [50, 0.999999, 60_000],
    [10_000, 0, 30_000],
  ])("after %i failures with random %f waits %i ms", (failures, random, expected) => {
    expect(retryDelayMs(failures, {}, () => random)).toBe(expected);
  });

  it("honours its base and cap", () => {
    expect(retryDelayMs(1, { baseMs: 10, maxMs: 15 }, () => 0)).toBe(5);
    expect(retryDelayMs(4, { baseMs: 10, maxMs: 15 }, () => 0.999999)).toBe(15);
  });
});

describe("planning a batch across rotated files", () => {
  it.each([
    // current size, line sizes, max, plan
    { size: 0, lines: [10, 10], max: 100, plan: { rotateFirst: false, runs: [2] } },
    { size: 90, lines: [10], max: 100, plan: { rotateFirst: false, runs: [1] } },
    { size: 91, lines: [10], max: 100, plan: { rotateFirst: true, runs: [1] } },
    { size: 50, lines: [30, 30, 30], max: 100, plan: { rotateFirst: false, runs: [1, 2] } },
    { size: 0, lines: [150, 10], max: 100, plan: { rotateFirst: false, runs: [1, 1] } },
    { size: 10, lines: [150], max: 100, plan: { rotateFirst: true, runs: [1] } },
    { size: 0, lines: [40, 40, 40, 40, 40], max: 100, plan: { rotateFirst: false, runs: [2, 2, 1] } },
  ])("$size bytes + $lines under $max", ({ size, lines, max, plan }) => {
    expect(planWrites(size, lines, max)).toEqual(plan);
  });
});
