import { createTestWorld, forEachStore, storedAuditRows } from "@strongroom/core/testing";
import fc from "fast-check";
import { describe, expect, it, onTestFinished } from "vitest";
import { SegmentBuilder, segmentRows, type SegmentEntry } from "../../src/audit/segments.js";

const text = fc.string({ unit: "grapheme", maxLength: 40 });
const maybe = fc.option(text, { nil: null });
const entry: fc.Arbitrary<SegmentEntry> = fc.record({
  id: fc.uuid(),
  createdAt: fc.date({ min: new Date("2020-01-01"), max: new Date("2030-01-01"), noInvalidDate: true }).map((d) => d.toISOString()),
  orgId: maybe,
  projectId: maybe,
  environment: maybe,
  secretPath: maybe,
  actorType: fc.constantFrom("user", "identity", "agent-proxy", "unknownUser"),
  actorId: maybe,
  actorName: maybe,
  eventType: text,
  outcome: fc.constantFrom("success", "denied", "failed"),
  ipAddress: maybe,
  userAgent: maybe,
  metadata: text,
  secretKeyIndex: maybe,
  count: fc.integer({ min: 1, max: 10_000 }),
  hash: fc.stringMatching(/^[0-9a-f]{64}$/),
});

describe("audit segments", () => {
  it("give back every entry exactly as added, numbered and linked from the segment's start", () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 1e9 }), (entries, firstSeq) => {
        const builder = new SegmentBuilder("project:p", firstSeq, "0".repeat(64));
        for (const e of entries) builder.add(e);
        const row = builder.row("seg", "org", "p");
        expect(row.lastSeq - row.firstSeq + 1).toBe(entries.length);
        expect(row.hash).toBe(entries.at(-1)!.hash);
        const times = entries.map((e) => e.createdAt).sort();
        expect([row.firstAt, row.lastAt]).toEqual([times[0], times.at(-1)]);
        expect(segmentRows(row)).toEqual(
          entries.map((e, i) => ({ ...e, chainId: "project:p", seq: firstSeq + i, prevHash: i === 0 ? "0".repeat(64) : entries[i - 1].hash })),
        );
      }),
    );
  });

  it("give one unreadable entry for a body that is not a segment's", () => {
    const builder = new SegmentBuilder("instance", 5, "a".repeat(64));
    builder.add(fc.sample(entry, 1)[0]);
    const row = builder.row("seg", null, null);
    for (const entries of ["", "[]", '{"v":2,"d":[],"e":[]}', '{"v":1,"d":[1],"e":[[]]}', '{"v":1,"d":[],"e":[]}']) {
      expect(segmentRows({ ...row, entries })).toEqual([expect.objectContaining({ id: "seg", seq: 5, metadata: "" })]);
    }
  });
});

forEachStore("audit query across rows and segments", (store) => {
  it("pages and filters changes (rows) and reads (segments) as one list, newest first", async () => {
    const w = await createTestWorld({ storage: await store.open() });
    onTestFinished(() => w.close());
    const at = (environment: string) => ({ projectId: w.projectId, environment });
    // Changes and reads interleaved, one second apart, over more flushes (segments) than one page of a scan.
    for (let i = 0; i < 12; i++) {
      const environment = i % 3 === 0 ? "prod" : "dev";
      await w.sr.secrets.create(w.admin, { ...at(environment), secretName: `K_${i}`, secretValue: "v" });
      w.clock.advance(1000);
      await w.sr.secrets.get(w.admin, { ...at(environment), secretName: `K_${i}` });
      await w.sr.secrets.list(w.admin, at(environment));
      w.clock.advance(1000);
      if (i % 4 !== 3) await w.sr.audit.flush();
    }
    await w.sr.audit.flush();
    expect(await w.sr.context.storage.tables.auditSegments.count({ projectId: w.projectId })).toBeGreaterThan(8);

    const stored = (await storedAuditRows(w.sr.context.storage, `project:${w.projectId}`)).sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );
    const entries = async (filter: Record<string, unknown>, offset: number, limit: number) =>
      (await w.sr.audit.query(w.admin, { projectId: w.projectId, ...filter, offset, limit })).auditLogs;
    const query = async (filter: Record<string, unknown>, offset: number, limit: number) => (await entries(filter, offset, limit)).map((e) => e.id);
    const cases: [Record<string, unknown>, (row: (typeof stored)[number]) => boolean][] = [
      [{}, () => true],
      [{ environment: "prod" }, (r) => r.environment === "prod"],
      [{ eventType: "get-secret" }, (r) => r.eventType === "get-secret"],
      [{ eventType: ["get-secrets", "create-secret"] }, (r) => r.eventType === "get-secrets" || r.eventType === "create-secret"],
      // Blind-indexed: the create and the get of K_4 (a list names no key).
      [{ secretKey: "K_4" }, () => true],
      [{ startDate: stored[20].createdAt, endDate: stored[5].createdAt }, (r) => r.createdAt >= stored[20].createdAt && r.createdAt <= stored[5].createdAt],
    ];
    for (const [filter, keep] of cases) {
      const all = await query(filter, 0, 1000);
      if (filter.secretKey === undefined) expect(all, JSON.stringify(filter)).toEqual(stored.filter(keep).map((r) => r.id));
      else {
        const found = await entries(filter, 0, 1000);
        expect(found.map((e) => [e.event.type, e.event.metadata.secretName])).toEqual([
          ["get-secret", "K_4"],
          ["create-secret", "K_4"],
        ]);
      }
      // Any page is the same slice of the whole list.
      for (const [offset, limit] of [[0, 5], [3, 7], [all.length - 2, 5]]) {
        expect(await query(filter, Math.max(offset, 0), limit), `${JSON.stringify(filter)} ${offset}+${limit}`).toEqual(all.slice(Math.max(offset, 0), Math.max(offset, 0) + limit));
      }
    }
  });
});
