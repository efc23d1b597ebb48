import { createTestWorld, forEachStore, storedAuditRows, type TestWorld } from "@strongroom/core/testing";
import { expect, it, onTestFinished } from "vitest";
import { checkpointSignatureValid } from "../../src/audit/chain.js";

const DAY = 24 * 60 * 60 * 1000;

forEachStore("audit retention", (store) => {
  async function world(): Promise<TestWorld> {
    const w = await createTestWorld({ storage: await store.open() });
    onTestFinished(() => w.close());
    return w;
  }

  /** Some changes and reads in the world's project, recorded now. */
  async function activity(w: TestWorld, tag: string, count: number): Promise<void> {
    const at = { projectId: w.projectId, environment: "dev" };
    for (let i = 0; i < count; i++) {
      await w.sr.secrets.create(w.admin, { ...at, secretName: `${tag}_${i}`, secretValue: `v${i}` });
      await w.sr.secrets.get(w.admin, { ...at, secretName: `${tag}_${i}` });
    }
    await w.sr.audit.flush();
  }

  it("cuts the project's chain past auditLogsRetentionDays, once, and what is left still verifies from a signed checkpoint", async () => {
    const w = await world();
    const chain = `project:${w.projectId}`;
    const tables = w.sr.context.storage.tables;
    await activity(w, "OLD", 6);
    const oldHead = await w.sr.audit.headOf(chain);
    w.clock.advance(20 * DAY);
    await activity(w, "NEW", 3);
    const before = await w.sr.audit.headOf(chain);
    const orgChains = (await w.sr.audit.chains()).filter((c) => !c.startsWith("project:"));
    const stored = async (c: string) => (await storedAuditRows(w.sr.context.storage, c)).length;
    const orgCounts = await Promise.all(orgChains.map(stored));

    const { project } = await w.sr.projects.update(w.admin, { projectId: w.projectId, auditLogsRetentionDays: 10 });
    expect(project.auditLogsRetentionDays).toBe(10);
    w.clock.advance(1 * DAY);
    expect(await w.sr.scheduler.runDue()).toContain("audit-retention");

    // Everything recorded 21 days ago went; everything from a day ago stayed.
    const after = await w.sr.audit.headOf(chain);
    expect(after.firstSeq).toBe(oldHead.seq + 1);
    expect(after.seq).toBeGreaterThanOrEqual(before.seq);
    const kept = await storedAuditRows(w.sr.context.storage, chain);
    expect(kept.filter((row) => row.seq <= oldHead.seq)).toEqual([]);
    expect(kept.length).toBe(after.seq - oldHead.seq);
    const verdict = await w.sr.audit.verify({ chain });
    expect(verdict).toMatchObject({ ok: true, checked: after.seq - oldHead.seq, head: { seq: after.seq, hash: after.hash } });

    // The cut is a signed checkpoint of the last entry removed.
    const [cut] = await tables.auditCheckpoints.find({ chainId: chain, seq: oldHead.seq });
    expect(cut.hash).toBe(oldHead.hash);
    expect(checkpointSignatureValid({ chain, seq: cut.seq, hash: cut.hash, createdAt: cut.createdAt, keyId: cut.keyId, signature: cut.signature }, after.publicKey.spki)).toBe(true);

    // Other chains are untouched.
    expect(await Promise.all(orgChains.map(stored))).toEqual(orgCounts);

    // Tampering after the cut is still found: the first entry kept, removed.
    await tables.auditEntries.delete({ chainId: chain, seq: after.firstSeq });
    expect(await w.sr.audit.verify({ chain })).toMatchObject({ ok: false, firstBad: { seq: after.firstSeq, reason: "missing" } });
  });

  it("keeps what is within retention, and a whole chain past it verifies empty from its cut", async () => {
    const w = await world();
    const chain = `project:${w.projectId}`;
    const tables = w.sr.context.storage.tables;
    await activity(w, "A", 3);
    await tables.projects.update({ id: w.projectId }, { auditLogsRetentionDays: 30 });
    w.clock.advance(29 * DAY);
    await w.sr.scheduler.runDue();
    expect((await w.sr.audit.headOf(chain)).firstSeq).toBe(1);

    w.clock.advance(2 * DAY);
    expect(await w.sr.scheduler.runDue()).toContain("audit-retention");
    const head = await w.sr.audit.headOf(chain);
    expect(head.firstSeq).toBe(head.seq + 1);
    expect(await storedAuditRows(w.sr.context.storage, chain)).toEqual([]);
    expect(await w.sr.audit.verify({ chain })).toMatchObject({ ok: true, checked: 0, head: { seq: head.seq, hash: head.hash } });

    // The chain goes on after the cut, and verifies across it.
    await activity(w, "B", 1);
    const grown = await w.sr.audit.headOf(chain);
    expect(await w.sr.audit.verify({ chain })).toMatchObject({ ok: true, checked: grown.seq - head.seq });
  });

  it("removes a flush's segment whole: one holding entries on both sides of the cutoff stays until all of it is past", async () => {
    const w = await world();
    const chain = `project:${w.projectId}`;
    const at = { projectId: w.projectId, environment: "dev" };
    await w.sr.secrets.create(w.admin, { ...at, secretName: "K", secretValue: "v" });
    // Two reads twenty days apart in one flush (a manual clock, no flush in between): one segment, seq 2 and 3.
    await w.sr.secrets.get(w.admin, { ...at, secretName: "K" });
    w.clock.advance(20 * DAY);
    await w.sr.secrets.get(w.admin, { ...at, secretName: "K" });
    await w.sr.audit.flush();
    const [segment] = await w.sr.context.storage.tables.auditSegments.find({ chainId: chain });
    expect([segment.firstSeq, segment.lastSeq]).toEqual([2, 3]);

    await w.sr.context.storage.tables.projects.update({ id: w.projectId }, { auditLogsRetentionDays: 10 });
    w.clock.advance(1 * DAY);
    expect(await w.sr.scheduler.runDue()).toContain("audit-retention");
    // The create went; the old read stays with the new one in their segment.
    expect((await w.sr.audit.headOf(chain)).firstSeq).toBe(2);
    expect((await storedAuditRows(w.sr.context.storage, chain)).map((row) => row.seq)).toEqual([2, 3]);
    expect(await w.sr.audit.verify({ chain })).toMatchObject({ ok: true, checked: 2 });

    w.clock.advance(20 * DAY);
    await w.sr.scheduler.runDue();
    expect((await w.sr.audit.headOf(chain)).firstSeq).toBe(4);
    expect(await storedAuditRows(w.sr.context.storage, chain)).toEqual([]);
    expect(await w.sr.audit.verify({ chain })).toMatchObject({ ok: true, checked: 0 });
  });
});
