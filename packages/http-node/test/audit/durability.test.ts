import { ServiceUnavailableError } from "@strongroom/core";
import { afterEach, describe, expect, it } from "vitest";
import { backendAvailable, backends } from "../../src/testing/harness.js";
import { auditBackend, auditScene, type AuditBackend, type AuditScene } from "./fixture.js";

/**
 * No change without its record: a change whose audit insert fails is rolled back. Reads are not
 * served unrecorded: once the queue cannot drain and is full, new calls are refused with 503;
 * when storage recovers the queued entries are written.
 */
for (const backend of backends) {
  describe(`audit durability on ${backend}`, () => {
    let db: AuditBackend | undefined;
    let scene: AuditScene | undefined;
    afterEach(async () => {
      await scene?.sr.close().catch(() => {});
      await db?.close();
      db = undefined;
      scene = undefined;
    });

    it("rolls back a change whose audit insert fails", async (ctx) => {
      if (!(await backendAvailable(backend))) return ctx.skip();
      db = await auditBackend(backend);
      scene = await auditScene(await db.open());
      const { sr, admin, where } = scene;
      await sr.secrets.create(admin, { ...where, secretName: "KEPT", secretValue: "1" });
      await db.refuseAuditInserts(true);
      await expect(sr.secrets.create(admin, { ...where, secretName: "LOST", secretValue: "2" })).rejects.toThrow();
      await expect(sr.secrets.update(admin, { ...where, secretName: "KEPT", secretValue: "changed" })).rejects.toThrow();
      await expect(sr.secrets.updateMany(admin, { ...where, mode: "upsert", secrets: [{ secretKey: "BATCH", secretValue: "3" }] })).rejects.toThrow();
      await db.refuseAuditInserts(false);
      const { secrets } = await sr.secrets.list(admin, where);
      expect(secrets.map((s) => [s.secretKey, s.secretValue])).toEqual([["KEPT", "1"]]);
      await sr.audit.flush();
      const chain = `project:${scene.projectId}`;
      expect(await sr.audit.verify({ chain })).toMatchObject({ ok: true });
      // Each refused change is still on record, as a failure, written once storage took entries again.
      const { auditLogs } = await sr.audit.query(admin, { projectId: scene.projectId, limit: 100 });
      const types = auditLogs.map((e) => `${e.event.type}:${e.outcome}`);
      expect(types.filter((t) => t.endsWith(":failed")).sort()).toEqual(["create-secret:failed", "update-secret:failed", "update-secrets:failed"]);
      expect(types.filter((t) => t === "create-secret:success")).toHaveLength(1);
    });

    it("rolls back an issued certificate whose audit insert fails", async (ctx) => {
      if (!(await backendAvailable(backend))) return ctx.skip();
      db = await auditBackend(backend);
      scene = await auditScene(await db.open());
      const { sr, admin } = scene;
      const { project } = await sr.projects.create(admin, { projectName: "PKI", type: "cert-manager" });
      const { certificateProfile } = await sr.certificateProfiles.create(admin, {
        projectId: project.id,
        slug: "web",
        issuerType: "self-signed",
        defaults: { ttlDays: 30, keyAlgorithm: "EC_prime256v1" },
      });
      const issue = (commonName: string) => sr.certificates.issue(admin, { profileId: certificateProfile.id, attributes: { commonName } });
      await issue("kept.acme.test");
      await db.refuseAuditInserts(true);
      await expect(issue("lost.acme.test")).rejects.toThrow();
      await db.refuseAuditInserts(false);
      const { certificates } = await sr.certificates.list(admin, { projectId: project.id });
      expect(certificates.map((c) => c.commonName)).toEqual(["kept.acme.test"]);
      await sr.audit.flush();
      const { auditLogs } = await sr.audit.query(admin, { projectId: project.id, eventType: "issue-cert", limit: 100 });
      expect(auditLogs.map((e) => e.outcome).sort()).toEqual(["failed", "success"]);
    });

    it("refuses calls with 503 while the read queue cannot drain, and writes it once storage recovers", async (ctx) => {
      if (!(await backendAvailable(backend))) return ctx.skip();
      db = await auditBackend(backend);
      scene = await auditScene(await db.open(), { audit: { queue: { capacity: 5, flushIntervalMs: 10 } } });
      const { sr, admin, where } = scene;
      await sr.secrets.create(admin, { ...where, secretName: "READ_ME", secretValue: "1" });
      await db.refuseAuditInserts(true);
      let served = 0;
      let refused: unknown;
      for (let i = 0; i < 50 && !refused; i++) {
        try {
          await sr.secrets.get(admin, { ...where, secretName: "READ_ME" });
          served++;
        } catch (error) {
          refused = error;
        }
      }
      expect(refused).toBeInstanceOf(ServiceUnavailableError);
      expect(served).toBeLessThanOrEqual(5);
      await db.refuseAuditInserts(false);
      await sr.audit.flush();
      const { auditLogs } = await sr.audit.query(admin, { projectId: scene.projectId, eventType: "get-secret", limit: 100 });
      expect(auditLogs).toHaveLength(served);
      await sr.secrets.get(admin, { ...where, secretName: "READ_ME" });
    });
  });
}
