import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { leaseExpiry, readTtl, renewalExpiry, retryDelayMs, ttlPairProblem } from "../../src/dynamic-secrets/ttl.js";

const H = 3_600_000;
const now = new Date("2026-03-01T00:00:00.000Z");
const at = (ms: number) => new Date(now.getTime() + ms);

describe("lease TTLs", () => {
  it.each([
    ["1h", { ms: H }],
    ["90s", { ms: 90_000 }],
    ["7d", { ms: 7 * 24 * H }],
    ["30s", { problem: "ttl must be at least 1m" }],
    ["1y", { problem: 'ttl "1y" is not a duration such as 30m, 1h or 7d (at most 3650d)' }],
    ["1h30m", { problem: 'ttl "1h30m" is not a duration such as 30m, 1h or 7d (at most 3650d)' }],
    ["3651d", { problem: 'ttl "3651d" is not a duration such as 30m, 1h or 7d (at most 3650d)' }],
  ])("%s reads as %j", (text, expected) => {
    expect(readTtl(text, "ttl")).toEqual(expected);
  });

  it.each([
    [H, null, undefined],
    [H, H, undefined],
    [2 * H, H, "defaultTTL must not exceed maxTTL"],
  ])("defaultTTL %i with maxTTL %s: %s", (defaultMs, maxMs, problem) => {
    expect(ttlPairProblem(defaultMs, maxMs)).toBe(problem);
  });

  it.each([
    ["the default when none is asked", undefined, H, 24 * H, { expiresAt: at(H) }],
    ["the ttl asked for", 2 * H, H, 24 * H, { expiresAt: at(2 * H) }],
    ["maxTTL itself", 24 * H, H, 24 * H, { expiresAt: at(24 * H) }],
    ["no bound without maxTTL", 1000 * H, H, null, { expiresAt: at(1000 * H) }],
    ["refused beyond maxTTL", 25 * H, H, 24 * H, { problem: "The lease's ttl exceeds the dynamic secret's maxTTL" }],
  ])("a new lease gets %s", (_name, ttl, defaultMs, maxMs, expected) => {
    expect(leaseExpiry(now, ttl, defaultMs, maxMs)).toEqual(expected);
  });

  const lease = { createdAt: now, expiresAt: at(H) };
  it.each([
    ["pushes the expiry back by ttl", at(30 * 60_000), 2 * H, { expiresAt: at(3 * H) }],
    ["by defaultTTL when no ttl is given", at(30 * 60_000), undefined, { expiresAt: at(2 * H) }],
    ["up to maxTTL from creation exactly", at(30 * 60_000), 3 * H, { expiresAt: at(4 * H) }],
    ["refuses beyond maxTTL", at(30 * 60_000), 3 * H + 1000, { problem: "Renewing would take the lease beyond the dynamic secret's maxTTL" }],
    ["refuses an expired lease", at(H), H, { problem: "The lease has expired; create a new one" }],
  ])("renewal %s", (_name, when, ttl, expected) => {
    expect(renewalExpiry(lease, when, ttl, H, 4 * H)).toEqual(expected);
  });

  it("never lets renewals take a lease past maxTTL, however they are chained", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 60_000, max: 10 * H }), { maxLength: 20 }), fc.integer({ min: H, max: 48 * H }), (ttls, maxMs) => {
        let current = { createdAt: now, expiresAt: at(Math.min(H, maxMs)) };
        for (const ttl of ttls) {
          const renewed = renewalExpiry(current, now, ttl, H, maxMs);
          if ("expiresAt" in renewed) current = { ...current, expiresAt: renewed.expiresAt };
        }
        expect(current.expiresAt.getTime() - now.getTime()).toBeLessThanOrEqual(maxMs);
      }),
    );
  });

  it("retries failed revocations after a minute, doubling, at most hourly", () => {
    expect([1, 2, 3, 4, 6, 7, 8, 50].map(retryDelayMs)).toEqual([60_000, 120_000, 240_000, 480_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000]);
  });
});
