import { expect, it } from "vitest";
import { createMemoryStorage, ManualClock } from "@strongroom/core";
import { jobNode } from "@strongroom/core/testing";

const HOUR = 60 * 60 * 1000;
const LEASE_MS = 60;

it("lets exactly one of several nodes claiming at once run a period", async () => {
  const storage = createMemoryStorage();
  const clock = new ManualClock("2026-05-01T00:00:00Z");
  let runs = 0;
  const job = { name: "once", intervalMs: HOUR, run: async () => void runs++ };
  const nodes = Array.from({ length: 5 }, () => jobNode(storage, [job], { clock }));
  const ran = await Promise.all(nodes.map((node) => node.runDue()));
  expect(ran.flat()).toEqual(["once"]);
  expect(runs).toBe(1);
});

it("renews the lease of a long run, so no other node takes it over while it lasts", async () => {
  const storage = createMemoryStorage();
  const clock = new ManualClock("2026-05-01T00:00:00Z");
  let finish: () => void = () => undefined;
  let runs = 0;
  const slow = { name: "slow", intervalMs: HOUR, run: () => new Promise<void>((resolve) => ((finish = resolve), runs++)) };
  const fast = { name: "slow", intervalMs: HOUR, run: async () => void runs++ };
  const holder = jobNode(storage, [slow], { clock, leaseMs: LEASE_MS });
  const other = jobNode(storage, [fast], { clock, leaseMs: LEASE_MS });
  const running = holder.runDue();
  await new Promise((resolve) => setTimeout(resolve, 10));
  const leaseEnd = async () => Date.parse((await storage.tables.jobLeases.get("slow"))!.expiresAt);
  for (let i = 0; i < 5; i++) {
    // The instance clock moves on by half a lease; the holder renews (a third of a lease apart)...
    clock.advance(LEASE_MS / 2);
    await expect.poll(leaseEnd, { interval: 5, timeout: 5_000 }).toBe(clock.now().getTime() + LEASE_MS);
    // ...so in all it holds the period far past one lease.
    expect(await other.runDue()).toEqual([]);
  }
  finish();
  expect(await running).toEqual(["slow"]);
  expect(runs).toBe(1);
  expect(await other.runDue()).toEqual([]);
  clock.advance(HOUR);
  expect(await other.runDue()).toEqual(["slow"]);
});

it("tells run listeners each run this node makes, failed or not, and nothing for periods it does not claim", async () => {
  const storage = createMemoryStorage();
  const clock = new ManualClock("2026-05-01T00:00:00Z");
  const jobs = [
    { name: "fine", intervalMs: HOUR, run: async () => undefined },
    { name: "broken", intervalMs: HOUR, run: async () => Promise.reject(new Error("boom")) },
  ];
  const node = jobNode(storage, jobs, { clock });
  const heard: { job: string; outcome: string }[] = [];
  const stop = node.onRun(({ job, outcome, durationMs }) => {
    expect(durationMs).toBeGreaterThanOrEqual(0);
    heard.push({ job, outcome });
  });
  await node.runDue();
  expect(heard).toEqual([
    { job: "fine", outcome: "succeeded" },
    { job: "broken", outcome: "failed" },
  ]);
  await node.runDue(); // same period: nothing claimed, nothing told
  expect(heard).toHaveLength(2);
  stop();
  clock.advance(HOUR);
  await node.runDue();
  expect(heard).toHaveLength(2);
});
