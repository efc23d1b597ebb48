import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
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
    const orgCounts = await Promise.all(orgChains.map((c) => tables.auditEntries.count({ chainId: c })));

    await tables.projects.update({ id: w.projectId }, { auditLogsRetentionDays: 10 });
    w.clock.advance(1 * DAY);
    expect(await w.sr.scheduler.runDue()).toContain("audit-retention");

    // Everything recorded 21 days ago went; everything from a day ago stayed.
    const after = await w.sr.audit.headOf(chain);
    expect(after.firstSeq).toBe(oldHead.seq + 1);
    expect(after.seq).toBeGreaterThanOrEqual(before.seq);
    expect(await tables.auditEntries.count({ chainId: chain, seq: { lte: oldHead.seq } })).toBe(0);
    expect(await tables.auditEntries.count({ chainId: chain })).toBe(after.seq - oldHead.seq);
    const verdict = await w.sr.audit.verify({ chain });
    expect(verdict).toMatchObject({ ok: true, checked: after.seq - oldHead.seq, head: { seq: after.seq, hash: after.hash } });

    // The cut is a signed checkpoint of the last entry removed.
    const [cut] = await tables.auditCheckpoints.find({ chainId: chain, seq: oldHead.seq });
    expect(cut.hash).toBe(oldHead.hash);
    expect(checkpointSignatureValid({ chain, seq: cut.seq, hash: cut.hash, createdAt: cut.createdAt, keyId: cut.keyId, signature: cut.signature }, after.publicKey.spki)).toBe(true);

    // Other chains are untouched.
    expect(await Promise.all(orgChains.map((c) => tables.auditEntries.count({ chainId: c })))).toEqual(orgCounts);

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
    expect(await tables.auditEntries.count({ chainId: chain })).toBe(0);
    expect(await w.sr.audit.verify({ chain })).toMatchObject({ ok: true, checked: 0, head: { seq: head.seq, hash: head.hash } });

    // The chain goes on after the cut, and verifies across it.
    await activity(w, "B", 1);
    const grown = await w.sr.audit.headOf(chain);
    expect(await w.sr.audit.verify({ chain })).toMatchObject({ ok: true, checked: grown.seq - head.seq });
  });
});
