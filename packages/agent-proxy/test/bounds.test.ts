import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BodyBudget } from "../src/server/body-budget.js";
import { ConfigPoller, type PollScope } from "../src/control/config-poller.js";
import type { ProxyState } from "../src/control/control-plane.js";
import { admitDeniedHost, DeniedHosts, type DeniedHostWindow } from "../src/server/denied-hosts.js";
import { DEFAULT_LIMITS, parseLimits, resolveLimits } from "../src/server/limits.js";
import { HeaderDeadline } from "../src/server/request-deadlines.js";
import { SessionActivity } from "../src/server/session-activity.js";

describe("limits", () => {
  it("has the defaults DESIGN.md §11 names", () => {
    expect(DEFAULT_LIMITS).toMatchObject({
      headerTimeoutMs: 30_000,
      bodyIdleTimeoutMs: 30_000,
      bufferedBodyBudgetBytes: 64 * 1024 * 1024,
      maxTunnelsPerSession: 64,
      deniedHostsPerMinute: 20,
    });
  });

  it.each([
    [["headerTimeoutMs=300"], { headerTimeoutMs: 300 }],
    [["headerTimeoutMs=300,bodyIdleTimeoutMs=400", "maxTunnelsPerSession=2"], { headerTimeoutMs: 300, bodyIdleTimeoutMs: 400, maxTunnelsPerSession: 2 }],
    [[" deniedHostsPerMinute = 3 ,"], { deniedHostsPerMinute: 3 }],
    [[""], {}],
  ])("parses %j", (items, expected) => {
    expect(parseLimits(items)).toEqual(expected);
  });

  it.each([["headerTimeout=3"], ["headerTimeoutMs=0"], ["headerTimeoutMs=-1"], ["headerTimeoutMs=1.5"], ["headerTimeoutMs"]])("refuses %j", (item) => {
    expect(() => parseLimits([item])).toThrow(/limit/);
  });

  it("refuses a bound that would switch the protection off", () => {
    expect(() => resolveLimits({ bufferedBodyBudgetBytes: 0 })).toThrow(/positive/);
  });
});

describe("body budget", () => {
  it("never holds more than its limit, whatever the order of reservations and releases (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 40 })), { maxLength: 60 }), (steps) => {
        const budget = new BodyBudget(100);
        const held: number[] = [];
        for (const [reserve, bytes] of steps) {
          if (reserve) {
            const before = budget.used;
            if (budget.tryReserve(bytes)) held.push(bytes);
            else expect(budget.used).toBe(before);
          } else if (held.length) budget.release(held.pop()!);
          expect(budget.used).toBeLessThanOrEqual(100);
          expect(budget.used).toBe(held.reduce((a, b) => a + b, 0));
        }
      }),
    );
  });
});

describe("session activity", () => {
  it("caps tunnels and requests per session, independently of other sessions", () => {
    const activity = new SessionActivity({ maxTunnels: 2, maxRequests: 1 });
    const first = activity.openTunnel("a");
    expect(first).not.toBeNull();
    expect(activity.openTunnel("a")).not.toBeNull();
    expect(activity.openTunnel("a")).toBeNull();
    expect(activity.openTunnel("b")).not.toBeNull();
    first!();
    first!();
    expect(activity.counts("a").tunnels).toBe(1);
    expect(activity.openTunnel("a")).not.toBeNull();
    expect(activity.beginRequest("a", () => undefined)).not.toBeNull();
    expect(activity.beginRequest("a", () => undefined)).toBeNull();
  });

  it("cuts the requests of sessions that are no longer live, and only theirs", () => {
    const activity = new SessionActivity({ maxTunnels: 5, maxRequests: 5 });
    const cut: string[] = [];
    activity.beginRequest("gone", () => cut.push("gone-1"));
    activity.beginRequest("gone", () => cut.push("gone-2"));
    activity.openTunnel("gone");
    activity.beginRequest("live", () => cut.push("live"));
    expect(activity.cutAllBut(new Set(["live"]))).toBe(2);
    expect(cut.sort()).toEqual(["gone-1", "gone-2"]);
    expect(activity.counts("gone")).toEqual({ tunnels: 0, requests: 0 });
    expect(activity.counts("live").requests).toBe(1);
  });
});

describe("denied hosts per session and minute", () => {
  const empty: DeniedHostWindow = { admitted: new Map() };
  const run = (hosts: [string, number][], limit = 2) => {
    let window = empty;
    return hosts.map(([host, at]) => {
      const verdict = admitDeniedHost(window, host, at, limit, 60_000);
      window = verdict.window;
      return verdict.intercept;
    });
  };

  it.each<[string, [string, number][], boolean[]]>([
    ["new hosts up to the limit", [["a", 0], ["b", 1], ["c", 2]], [true, true, false]],
    ["a host already admitted stays admitted", [["a", 0], ["b", 1], ["a", 2], ["c", 3], ["b", 4]], [true, true, true, false, true]],
    ["the window moves on", [["a", 0], ["b", 1], ["c", 59_999], ["c", 60_000], ["d", 60_001]], [true, true, false, true, true]],
  ])("%s", (_name, hosts, expected) => {
    expect(run(hosts)).toEqual(expected);
  });

  it("never admits more than the limit of new hosts in any window (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 5_000 })), { maxLength: 80 }), (steps) => {
        let now = 0;
        const timeline = steps.map(([host, gap]) => [`h${host}`, (now += gap)] as [string, number]);
        const verdicts = run(timeline, 3);
        const firstAdmitted = new Map<string, number>();
        timeline.forEach(([host, at], i) => {
          if (!verdicts[i]) return;
          const since = firstAdmitted.get(host);
          if (since === undefined || at - since >= 60_000) firstAdmitted.set(host, at);
          const inWindow = [...firstAdmitted.values()].filter((t) => at - t < 60_000);
          expect(inWindow.length).toBeLessThanOrEqual(3);
        });
      }),
    );
  });

  it("forgets sessions that ended", () => {
    let now = 0;
    const denied = new DeniedHosts(1, () => now);
    expect(denied.intercept("s", "a")).toBe(true);
    expect(denied.intercept("s", "b")).toBe(false);
    denied.forgetAllBut(new Set());
    expect(denied.intercept("s", "b")).toBe(true);
    now = 60_000;
    expect(denied.intercept("s", "c")).toBe(true);
  });
});

describe("timers", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("a header deadline runs while waiting for headers and restarts after each response", () => {
    const expired: boolean[] = [];
    const fresh = new HeaderDeadline(300, (served) => expired.push(served));
    vi.advanceTimersByTime(300);
    expect(expired).toEqual([false]);
    fresh.stop();

    const deadline = new HeaderDeadline(300, (served) => expired.push(served));
    vi.advanceTimersByTime(299);
    const listeners: (() => void)[] = [];
    deadline.requestStarted({ once: (_event: "close", listener: () => void) => listeners.push(listener) });
    vi.advanceTimersByTime(10_000);
    expect(expired).toEqual([false]);
    listeners.forEach((listener) => listener());
    vi.advanceTimersByTime(299);
    expect(expired).toEqual([false]);
    vi.advanceTimersByTime(1);
    // Idle after serving a request: closed without a 408.
    expect(expired).toEqual([false, true]);
    deadline.stop();
  });

  const state = (sessions: string[]): ProxyState =>
    ({
      config: { pollInterval: 10 },
      sessions: sessions.map((id) => ({ id, tokenHash: id, bundleId: "b", expiresAt: new Date(Date.now() + 3_600_000).toISOString() })),
      bundles: [],
      services: [],
    }) as unknown as ProxyState;

  it("polls at a fixed rate that polls for unknown tokens neither move nor turn into decision refreshes", async () => {
    const calls: string[] = [];
    const refreshed: PollScope[] = [];
    const controlPlane = {
      heartbeat: async () => (calls.push("heartbeat"), state([]).config),
      state: async () => (calls.push("state"), state(["s"])),
    };
    const poller = await ConfigPoller.start(controlPlane as never, { refreshed: (_s, scope) => refreshed.push(scope), unavailable: () => undefined, revoked: () => undefined }, () => Date.now());
    calls.length = 0;
    for (let second = 0; second < 9; second++) {
      vi.advanceTimersByTime(1_000);
      await poller.pollSessions(Date.now());
    }
    expect(refreshed).toEqual(Array(9).fill("sessions"));
    expect(calls.filter((c) => c === "heartbeat")).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(refreshed.at(-1)).toBe("full");
    expect(calls.filter((c) => c === "heartbeat")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls.filter((c) => c === "heartbeat")).toHaveLength(2);
    poller.stop();
  });
});
