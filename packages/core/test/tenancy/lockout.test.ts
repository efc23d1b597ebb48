import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clientAttempt, clientLockedFor, passwordAttempt, passwordLockedFor, type ClientLockoutState, type PasswordFailures } from "../../src/tenancy/auth/lockout.js";
import { ipTrusted, isTrustedIpEntry } from "../../src/tenancy/auth/trusted-ips.js";

const T0 = new Date("2026-01-01T00:00:00.000Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const client = { maxFailures: 3, lockSeconds: 300 };
const password = { maxFailures: 5, windowSeconds: 900 };

describe("universal-auth lockout", () => {
  const clean: ClientLockoutState = { failedLogins: 0, lockedUntil: null };

  it.each([
    ["a right secret on a clean id changes nothing", clean, true, 0, { outcome: "accepted", next: null }],
    ["a wrong secret counts", clean, false, 0, { outcome: "failed", next: { failedLogins: 1, lockedUntil: null } }],
    ["the third failure locks for five minutes", { failedLogins: 2, lockedUntil: null }, false, 0, { outcome: "failed", next: { failedLogins: 0, lockedUntil: at(300).toISOString() } }],
    ["a right secret clears earlier failures", { failedLogins: 2, lockedUntil: null }, true, 0, { outcome: "accepted", next: { failedLogins: 0, lockedUntil: null } }],
    ["while locked a right secret is refused", { failedLogins: 0, lockedUntil: at(300).toISOString() }, true, 10, { outcome: "locked", retryAfter: 290 }],
    ["while locked a wrong one is refused alike, uncounted", { failedLogins: 0, lockedUntil: at(300).toISOString() }, false, 299.5, { outcome: "locked", retryAfter: 1 }],
    ["after the lock a wrong secret counts from one", { failedLogins: 0, lockedUntil: at(300).toISOString() }, false, 300, { outcome: "failed", next: { failedLogins: 1, lockedUntil: null } }],
  ] as const)("%s", (_name, state, correct, seconds, verdict) => {
    expect(clientAttempt(state, correct, at(seconds), client)).toEqual(verdict);
  });

  it("judges at most maxFailures wrong guesses between two accepted logins at one instant", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 40 }), (guesses) => {
        let state: ClientLockoutState = clean;
        let wrongInARow = 0;
        for (const correct of guesses) {
          const verdict = clientAttempt(state, correct, T0, client);
          if (verdict.outcome === "locked") {
            expect(clientLockedFor(state, T0)).toBeGreaterThan(0);
            continue;
          }
          wrongInARow = correct ? 0 : wrongInARow + 1;
          expect(wrongInARow).toBeLessThanOrEqual(client.maxFailures);
          if (verdict.next) state = verdict.next;
        }
      }),
    );
  });
});

describe("password lockout per (account, address)", () => {
  const failures = (n: number, startedSecondsAgo = 0, now = 0): PasswordFailures => ({ failures: n, windowStartedAt: at(now - startedSecondsAgo).toISOString() });

  it.each([
    ["a first failure opens a window", undefined, false, 0, { outcome: "failed", next: failures(1) }],
    ["failures in the window add up", failures(3, 60, 60), false, 60, { outcome: "failed", next: failures(4, 60, 60) }],
    ["the fifth failure is still judged", failures(4, 60, 60), false, 60, { outcome: "failed", next: failures(5, 60, 60) }],
    ["after five, even the right password waits for the window's end", failures(5, 60, 60), true, 60, { outcome: "locked", retryAfter: 840 }],
    ["a success forgets the failures", failures(4, 60, 60), true, 60, { outcome: "accepted", next: null }],
    ["a failure after the window opens a new one", failures(5, 900, 900), false, 900, { outcome: "failed", next: failures(1, 0, 900) }],
    ["four old failures do not count towards a new window", failures(4, 901, 901), false, 901, { outcome: "failed", next: failures(1, 0, 901) }],
  ] as const)("%s", (_name, state, correct, seconds, verdict) => {
    expect(passwordAttempt(state, correct, at(seconds), password)).toEqual(verdict);
  });

  it("judges at most five wrong guesses per window between accepted logins, whatever the timing", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 120 })), { maxLength: 60 }), (attempts) => {
        let state: PasswordFailures | undefined;
        let clock = 0;
        let judged: number[] = [];
        for (const [correct, wait] of attempts) {
          clock += wait;
          const verdict = passwordAttempt(state, correct, at(clock), password);
          if (verdict.outcome === "locked") {
            expect(passwordLockedFor(state, at(clock), password)).toBe(verdict.retryAfter);
            continue;
          }
          if (correct) judged = [];
          else {
            const windowStart = Date.parse(verdict.next!.windowStartedAt);
            judged = [...judged.filter((t) => t >= windowStart), at(clock).getTime()];
            expect(judged.length).toBeLessThanOrEqual(password.maxFailures);
          }
          state = verdict.next ?? undefined;
        }
      }),
    );
  });
});

describe("trusted IP lists", () => {
  it.each([
    [[], undefined, true],
    [[], "203.0.113.9", true],
    [[{ ipAddress: "10.0.0.0/8" }], "10.1.2.3", true],
    [[{ ipAddress: "10.0.0.0/8" }], "11.1.2.3", false],
    [[{ ipAddress: "10.0.0.0/8" }], "::ffff:10.1.2.3", true],
    [[{ ipAddress: "10.0.0.0/8" }], undefined, false],
    [[{ ipAddress: "192.168.1.7" }], "192.168.1.7", true],
    [[{ ipAddress: "192.168.1.7" }], "192.168.1.8", false],
    [[{ ipAddress: "2001:db8::/32" }], "2001:db8::1", true],
    [[{ ipAddress: "2001:db8::/32" }], "10.0.0.1", false],
    [[{ ipAddress: "0.0.0.0/0" }, { ipAddress: "::/0" }], "198.51.100.1", true],
    [[{ ipAddress: "not an address" }], "10.0.0.1", false],
  ])("%j trusts %s: %s", (list, ip, expected) => {
    expect(ipTrusted(ip, list)).toBe(expected);
  });

  it.each([
    ["10.0.0.0/8", true],
    ["192.168.1.7", true],
    ["::1", true],
    ["2001:db8::/129", false],
    ["10.0.0.0/33", false],
    ["example.com", false],
    ["10.0.0.0/", false],
  ])("%s is a valid entry: %s", (entry, valid) => {
    expect(isTrustedIpEntry(entry)).toBe(valid);
  });
});
