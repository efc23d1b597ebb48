import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends } from "../../src/testing/harness.js";
import { auditBackend, auditScene, type AuditBackend, type AuditScene } from "./fixture.js";

/**
 * Tampering with the stored log, directly in the database, is found by `verify`, which names the
 * first entry that does not fit; put back as it was, the log verifies again.
 */
for (const backend of backends) {
  describe(`audit tampering on ${backend}`, () => {
    let db: AuditBackend;
    let scene: AuditScene;
    let chain: string;
    let available = true;
    /** A change's entry: a row of its own. */
    const row = async (seq: number) => (await db.sql(`select * from audit_entries where "chainId" = ? and seq = ?`, [chain, seq]))[0];
    /** The flush of the get and the list (seq 6 and 7): one segment, its entries in its JSON body. */
    const segment = async () => (await db.sql(`select * from audit_segments where "chainId" = ?`, [chain]))[0] as { id: string; entries: string; hash: string };
    const putBody = (id: string, body: unknown) => db.sql(`update audit_segments set entries = ? where id = ?`, [typeof body === "string" ? body : JSON.stringify(body), id]);
    const verify = () => scene.sr.audit.verify({ chain });

    beforeAll(async () => {
      available = await backendAvailable(backend);
      if (!available) return;
      db = await auditBackend(backend);
      scene = await auditScene(await db.open());
      for (const name of ["A", "B", "C", "D", "E"]) await scene.sr.secrets.create(scene.admin, { ...scene.where, secretName: name, secretValue: `v-${name}` });
      await scene.sr.secrets.get(scene.admin, { ...scene.where, secretName: "A" });
      await scene.sr.secrets.list(scene.admin, scene.where);
      await scene.sr.audit.flush();
      chain = `project:${scene.projectId}`;
    });
    afterAll(async () => {
      if (!available) return;
      await scene.sr.close();
      await db.close();
    });

    it("verifies an untouched chain to its head", async (ctx) => {
      if (!available) return ctx.skip();
      const head = await scene.sr.audit.headOf(chain);
      expect(head.seq).toBe(7); // five create-secret, get-secret, get-secrets (create-project is in the organization's chain)
      expect(await verify()).toEqual({ ok: true, chain, checked: 7, head: { seq: 7, hash: head.hash } });
    });

    it("names an edited entry (a column, or metadata taken from another entry)", async (ctx) => {
      if (!available) return ctx.skip();
      const original = await row(3);
      await db.sql(`update audit_entries set "eventType" = 'get-secret' where id = ?`, [original.id]);
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 3, id: original.id, reason: "hash-mismatch" } });
      const other = await row(4);
      await db.sql(`update audit_entries set "eventType" = ?, metadata = ? where id = ?`, [original.eventType, other.metadata, original.id]);
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 3, id: original.id, reason: "hash-mismatch" } });
      await db.sql(`update audit_entries set metadata = ? where id = ?`, ["garbage.sealed.text", original.id]);
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 3, id: original.id, reason: "unreadable" } });
      await db.sql(`update audit_entries set metadata = ? where id = ?`, [original.metadata, original.id]);
      expect(await verify()).toMatchObject({ ok: true });
    });

    it("names a deleted entry, in the middle or at the tail", async (ctx) => {
      if (!available) return ctx.skip();
      const middle = await row(4);
      await db.sql(`delete from audit_entries where id = ?`, [middle.id]);
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 4, reason: "missing" } });
      await scene.sr.context.storage.tables.auditEntries.insert(middle as never);
      // The tail is the flush of two reads: its segment removed, both are missing before the head.
      const tail = await segment();
      await db.sql(`delete from audit_segments where id = ?`, [tail.id]);
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 6, reason: "behind-head" } });
      await scene.sr.context.storage.tables.auditSegments.insert(tail as never);
      expect(await verify()).toMatchObject({ ok: true });
    });

    it("names reordered entries", async (ctx) => {
      if (!available) return ctx.skip();
      const [a, b] = [await row(2), await row(3)];
      await db.sql(`update audit_entries set seq = -1 where id = ?`, [a.id]);
      await db.sql(`update audit_entries set seq = 2 where id = ?`, [b.id]);
      await db.sql(`update audit_entries set seq = 3 where id = ?`, [a.id]);
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 2, id: b.id, reason: "broken-link" } });
      await db.sql(`update audit_entries set seq = -1 where id = ?`, [a.id]);
      await db.sql(`update audit_entries set seq = 3 where id = ?`, [b.id]);
      await db.sql(`update audit_entries set seq = 2 where id = ?`, [a.id]);
      expect(await verify()).toMatchObject({ ok: true });
    });

    it("names an inserted entry, at the end or in the middle", async (ctx) => {
      if (!available) return ctx.skip();
      const model = await row(5);
      const tail = await segment();
      await db.sql(
        `insert into audit_entries select 'forged', "chainId", 8, "createdAt", "orgId", "projectId", environment, "secretPath", "actorType", "actorId", "actorName", "eventType", outcome, "ipAddress", "userAgent", metadata, "secretKeyIndex", count, ?, hash from audit_entries where id = ?`,
        [tail.hash, model.id],
      );
      // Linked to the last entry but not hashed like one (the head would be beyond-head had it been).
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 8, id: "forged", reason: "hash-mismatch" } });
      await db.sql(`delete from audit_entries where id = 'forged'`);
      // In the middle: the entries after it renumbered (rows and the segment), the forged one linked to its predecessor.
      await db.sql(`update audit_segments set "firstSeq" = 7, "lastSeq" = 8 where id = ?`, [tail.id]);
      for (const seq of [5, 4, 3]) await db.sql(`update audit_entries set seq = ? where "chainId" = ? and seq = ?`, [seq + 1, chain, seq]);
      const before = await row(2);
      await db.sql(
        `insert into audit_entries select 'forged', "chainId", 3, "createdAt", "orgId", "projectId", environment, "secretPath", "actorType", "actorId", "actorName", "eventType", outcome, "ipAddress", "userAgent", metadata, "secretKeyIndex", count, ?, hash from audit_entries where id = ?`,
        [before.hash, before.id],
      );
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 3, id: "forged", reason: "hash-mismatch" } });
      await db.sql(`delete from audit_entries where id = 'forged'`);
      for (const seq of [4, 5, 6]) await db.sql(`update audit_entries set seq = ? where "chainId" = ? and seq = ?`, [seq - 1, chain, seq]);
      await db.sql(`update audit_segments set "firstSeq" = 6, "lastSeq" = 7 where id = ?`, [tail.id]);
      expect(await verify()).toMatchObject({ ok: true });
    });

    it("names an entry edited, removed, moved or made unreadable inside a segment", async (ctx) => {
      if (!available) return ctx.skip();
      const stored = await segment();
      // Each entry: [id, at, count, hash, ref × 13] (refs: orgId … eventType (8th), outcome, …, metadata (12th), secretKeyIndex).
      const body = JSON.parse(stored.entries) as { v: number; d: string[]; e: unknown[][] };
      expect(body.e.map((e) => e.length)).toEqual([17, 17]);
      const [get, list] = body.e as [string, ...unknown[]][];
      const again = () => JSON.parse(stored.entries) as typeof body;
      // Edited: the list's event type made another value.
      const edited = again();
      edited.d.push("get-secret");
      edited.e[1][4 + 7] = edited.d.length - 1;
      await putBody(stored.id, edited);
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 7, id: list[0], reason: "hash-mismatch" } });
      // Removed: the get taken out, the list then stands at seq 6 and does not hash as that entry.
      await putBody(stored.id, { ...again(), e: [again().e[1]] });
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 6, id: list[0], reason: "hash-mismatch" } });
      // Moved: the two swapped.
      await putBody(stored.id, { ...again(), e: [again().e[1], again().e[0]] });
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 6, id: list[0], reason: "hash-mismatch" } });
      // Unreadable: a body that does not decode, or a reference out of range.
      await putBody(stored.id, "not json");
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 6, id: stored.id, reason: "unreadable" } });
      const dangling = again();
      dangling.e[0][4 + 11] = 999;
      await putBody(stored.id, dangling);
      expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 6, id: stored.id, reason: "unreadable" } });
      await putBody(stored.id, stored.entries);
      expect(await verify()).toMatchObject({ ok: true });
      expect(get[0]).not.toBe(list[0]);
    });

    it("catches a rewritten tail and head against a signed checkpoint or a head obtained earlier", async (ctx) => {
      if (!available) return ctx.skip();
      expect(await scene.sr.audit.checkpoint()).toBeGreaterThan(0);
      const earlier = await scene.sr.audit.headOf(chain);
      expect(earlier.checkpoint).toMatchObject({ seq: 7, hash: earlier.hash });
      // Someone with the database deletes the last entry and moves the head back to its predecessor.
      const tail = await segment();
      const body = JSON.parse(tail.entries) as { v: number; d: string[]; e: unknown[][] };
      const previousHash = body.e[0][3] as string;
      await db.sql(`update audit_segments set entries = ?, "lastSeq" = 6, hash = ? where id = ?`, [JSON.stringify({ ...body, e: [body.e[0]] }), previousHash, tail.id]);
      await db.sql(`update audit_chain_heads set seq = 6, hash = ? where id = ?`, [previousHash, chain]);
      expect(await verify()).toMatchObject({ ok: true, head: { seq: 6 } });
      expect(await scene.sr.audit.verify({ chain, head: { seq: earlier.seq, hash: earlier.hash } })).toMatchObject({ ok: false, firstBad: { seq: 7, reason: "behind-head" } });
      await db.sql(`delete from audit_checkpoints where "chainId" = ?`, [chain]);
      await db.sql(`update audit_segments set entries = ?, "lastSeq" = 7, hash = ? where id = ?`, [tail.entries, tail.hash, tail.id]);
      await db.sql(`update audit_chain_heads set seq = 7, hash = ? where id = ?`, [tail.hash, chain]);
      expect(await verify()).toMatchObject({ ok: true });
    });
  });
}
