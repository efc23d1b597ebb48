import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renewal } from "../../src/tenancy/auth/renewal.js";

const S = 1000;
const settings = { accessTokenTTL: 3600, accessTokenMaxTTL: 4 * 3600 };

describe("renewing a machine-identity token", () => {
  it.each([
    ["right after issue: another TTL from now", 0, 10 * S, 10 * S + 3600 * S],
    ["mid-life: another TTL from now", 0, 2 * 3600 * S, 3 * 3600 * S],
    ["near the bound: only up to the bound", 0, 3.5 * 3600 * S, 4 * 3600 * S],
    ["one millisecond before the bound", 0, 4 * 3600 * S - 1, 4 * 3600 * S],
  ])("%s", (_name, issuedAt, now, expiresAt) => {
    expect(renewal(issuedAt, now, settings)).toEqual({ renewed: true, expiresAt });
  });

  it.each([
    ["at the bound", 4 * 3600 * S],
    ["past the bound", 5 * 3600 * S],
  ])("is refused %s", (_name, now) => {
    expect(renewal(0, now, settings)).toEqual({ renewed: false });
  });

  it("never extends past accessTokenMaxTTL after issue, nor further than accessTokenTTL from now", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 0, max: 10 ** 9 }),
        fc.integer({ min: 1, max: 10 ** 6 }),
        fc.integer({ min: 0, max: 10 ** 6 }),
        (issuedAt, elapsed, ttl, extra) => {
          const max = ttl + extra;
          const now = issuedAt + elapsed;
          const outcome = renewal(issuedAt, now, { accessTokenTTL: ttl, accessTokenMaxTTL: max });
          if (!outcome.renewed) return now >= issuedAt + max * S;
          return outcome.expiresAt > now && outcome.expiresAt <= issuedAt + max * S && outcome.expiresAt <= now + ttl * S;
        },
      ),
    );
  });
});
