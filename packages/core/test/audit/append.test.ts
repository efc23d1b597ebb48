import { createTestWorld } from "@strongroom/core/testing";
import { expect, it, onTestFinished } from "vitest";
import { auditLogService } from "../../src/audit/log.js";
import type { AuditDraft } from "../../src/audit/drafts.js";
import type { AuditEntry } from "../../src/audit/schemas.js";
import { verifyChain } from "../../src/audit/verify.js";

/**
 * Each distinct metadata is sealed once and reused by later appends (reads repeat a few secrets):
 * whatever entries share, each must still carry and hash its own metadata.
 */
it("entries of one append keep their own metadata, share a seal only when equal, and verify stored and streamed", async () => {
  const w = await createTestWorld();
  onTestFinished(() => w.close());
  const chain = `project:${w.projectId}`;
  const streamed: AuditEntry[] = [];
  w.sr.audit.addSink({ name: "test", write: async (entries) => void streamed.push(...entries), lag: () => ({ pending: 0, oldestPendingAt: null, dropped: 0 }) });
  const draft = (metadata: AuditDraft["metadata"]): AuditDraft => ({
    eventType: "get-secret",
    outcome: "success",
    at: w.clock.now().toISOString(),
    actor: { type: "identity", id: "reader", name: "reader" },
    orgId: w.orgId,
    projectId: w.projectId,
    environment: "dev",
    secretPath: "/",
    ipAddress: "203.0.113.7",
    userAgent: null,
    metadata,
    secretKeys: [],
    count: 1,
  });
  const metadatas: AuditDraft["metadata"][] = [
    { secretName: "A", version: 1 },
    { version: 1, secretName: "A" },
    { secretName: "B", version: 1 },
    { secretName: "A", version: 2 },
    { secretName: "A", version: 1 },
    { secretName: "A", version: 1, tags: ["x", "y"] },
    { secretName: "A", version: 1, tags: ["y", "x"] },
  ];
  const log = w.sr.context.service(auditLogService);
  await log.write(metadatas.slice(0, 4).map(draft));
  // A later flush: a metadata seen before, a new one, and one too large to keep.
  const large = { secretName: "A", secrets: Array.from({ length: 200 }, (_, i) => ({ secretKey: `KEY_${i}` })) };
  await log.write([...metadatas.slice(4).map(draft), draft(large), draft(large)]);
  metadatas.push(large, large);

  const written = streamed.slice(-metadatas.length);
  expect(written.map((e) => e.event.metadata)).toEqual(metadatas);
  // Equal metadata (in any key order) may share a salt; different metadata never does.
  const saltOf = (i: number) => written[i].salt;
  expect(saltOf(0)).toBe(saltOf(4));
  expect(new Set([saltOf(0), saltOf(2), saltOf(3), saltOf(5), saltOf(6), saltOf(7)]).size).toBe(6);

  // The streamed copy verifies on its own (each entry's hash covers its own metadata)…
  const head = await w.sr.audit.headOf(chain);
  const firstSeq = written[0].seq;
  const anchor = firstSeq > 1 ? { seq: firstSeq - 1, hash: written[0].prevHash } : undefined;
  expect(verifyChain(chain, written, { anchor, head: { seq: head.seq, hash: head.hash } })).toMatchObject({ ok: true, checked: metadatas.length });
  // …and so does the stored chain, whose entries read back as they were written.
  expect(await w.sr.audit.verify({ chain })).toMatchObject({ ok: true });
  const stored = (await w.sr.audit.query(w.admin, { projectId: w.projectId, limit: 100 })).auditLogs.filter((e) => written.some((x) => x.id === e.id));
  expect(new Map(stored.map((e) => [e.id, e.event.metadata]))).toEqual(new Map(written.map((e) => [e.id, e.event.metadata])));
});
