import { describe, expect, it, vi } from "vitest";
import type { AuditSink } from "../../../src/audit/sink.js";
import { createSink, type SinkTransport } from "../../../src/audit/sinks/stream.js";

/** A transport that keeps what it was given and fails while `failing` is set. */
function memoryTransport() {
  const batches: string[][] = [];
  const state = { failing: false, attempts: 0 };
  const transport: SinkTransport = {
    async deliver(lines) {
      state.attempts += 1;
      if (state.failing) throw new Error("receiver down");
      batches.push([...lines]);
    },
  };
  return { transport, batches, state, lines: () => batches.flat() };
}

describe("a sink's bounded buffer", () => {
  it("is what the audit log streams to", () => {
    const sink: AuditSink = createSink(memoryTransport().transport, { name: "memory" });
    expect(sink.lag()).toMatchObject({ pending: 0, oldestPendingAt: null, dropped: 0 });
  });

  it("delivers every entry once, in order, in batches", async () => {
    const t = memoryTransport();
    const sink = createSink<{ n: number }>(t.transport, { name: "memory", batchSize: 4 });
    for (let n = 0; n < 10; n++) sink.write([{ n }]);
    expect(await sink.flush()).toBe(true);
    expect(t.lines()).toEqual(Array.from({ length: 10 }, (_, n) => JSON.stringify({ n })));
    expect(t.batches.every((batch) => batch.length <= 4)).toBe(true);
    expect(sink.lag()).toMatchObject({ pending: 0, delivered: 10, dropped: 0, failures: 0, lagMs: 0 });
  });

  it("keeps a failed batch at the head and retries it, newer entries waiting behind it", async () => {
    const t = memoryTransport();
    const errors: string[] = [];
    const sink = createSink<{ n: number }>(t.transport, {
      name: "memory",
      backoff: { baseMs: 1, maxMs: 2 },
      onError: (_sink, error) => errors.push((error as Error).message),
    });
    t.state.failing = true;
    sink.write([{ n: 1 }]);
    await vi.waitFor(() => expect(t.state.attempts).toBeGreaterThanOrEqual(3));
    sink.write([{ n: 2 }]);
    expect(sink.lag()).toMatchObject({ pending: 2, delivered: 0, lastError: "receiver down" });
    expect(sink.lag().failures).toBeGreaterThanOrEqual(3);
    t.state.failing = false;
    expect(await sink.flush()).toBe(true);
    expect(t.lines()).toEqual(['{"n":1}', '{"n":2}']);
    expect(sink.lag()).toMatchObject({ pending: 0, delivered: 2, failures: 0 });
    expect(sink.lag().lastError).toBeUndefined();
    expect(errors[0]).toBe("receiver down");
  });

  it("drops what does not fit instead of waiting, and says so", async () => {
    const t = memoryTransport();
    let now = 1_000;
    const sink = createSink<{ n: number }>(t.transport, { name: "memory", capacity: 5, backoff: { baseMs: 1, maxMs: 2 }, now: () => now });
    t.state.failing = true;
    for (let n = 0; n < 12; n++) await sink.write([{ n }]);
    now += 2_500;
    expect(sink.lag()).toMatchObject({ pending: 5, capacity: 5, dropped: 7, lagMs: 2_500, oldestPendingAt: new Date(1_000).toISOString() });
    t.state.failing = false;
    await sink.flush();
    // The oldest five were kept: the stream has a gap at its end, not in its middle.
    expect(t.lines()).toEqual([0, 1, 2, 3, 4].map((n) => JSON.stringify({ n })));
  });

  it("gives up on a dead transport when closed, counting what it could not deliver", async () => {
    const t = memoryTransport();
    const sink = createSink<{ n: number }>(t.transport, { name: "memory", backoff: { baseMs: 1, maxMs: 2 } });
    t.state.failing = true;
    sink.write([{ n: 1 }]);
    sink.write([{ n: 2 }]);
    await sink.close(20);
    sink.write([{ n: 3 }]);
    expect(sink.lag()).toMatchObject({ pending: 0, delivered: 0, dropped: 3 });
  });

  it("skips an entry that cannot be written as JSON and goes on", async () => {
    const t = memoryTransport();
    const sink = createSink<unknown>(t.transport, { name: "memory", batchSize: 1 });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    sink.write([{ n: 1 }]);
    sink.write([cyclic]);
    sink.write([{ n: 2 }]);
    await sink.flush();
    expect(t.lines()).toEqual(['{"n":1}', '{"n":2}']);
    expect(sink.lag()).toMatchObject({ delivered: 2, dropped: 1 });
  });
});
