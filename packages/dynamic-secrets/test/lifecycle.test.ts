import { randomBytes } from "node:crypto";
import { forEachStore } from "@strongroom/core/testing";
import type { TestWorld } from "@strongroom/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresServer } from "../src/testing.js";
import { asPostgres, countThings, dynamicWorld, thingsDatabase } from "./world.js";

/**
 * A PostgreSQL dynamic secret through the embedded API on every store: leases whose credentials
 * log in, renewals within maxTTL, revocation by request, by the expiry job and by deletion, and
 * root credentials that never leave the sealed column.
 */
const server = await postgresServer();
const ROOT_PASSWORD = "pg-root-password-7f3a9c"; // trust auth ignores it; it must still never surface

describe.skipIf(!server.available)("PostgreSQL dynamic secrets", () => {
  let db: { name: string; drop(): Promise<void> };
  beforeAll(async () => {
    db = await thingsDatabase();
  });
  afterAll(async () => db?.drop());

  const inputs = () => ({ client: "postgres", host: "127.0.0.1", port: 5432, database: db.name, username: "postgres", password: ROOT_PASSWORD });

  forEachStore("leases", (store) => {
    let w: TestWorld;
    const where = () => ({ projectSlug: w.projectSlug, environmentSlug: "dev", path: "/" });
    const create = (name: string, extra: Record<string, unknown> = {}) =>
      w.sr.dynamicSecrets.create(w.admin, { ...where(), name, provider: { type: "sql-database", inputs: inputs() }, defaultTTL: "1h", maxTTL: "4h", ...extra });

    beforeAll(async () => {
      w = await dynamicWorld(store);
    });
    afterAll(async () => w?.close());

    it("creates a dynamic secret whose root password is sealed and never answered", async () => {
      const { dynamicSecret } = await create("app-db");
      expect(dynamicSecret).toMatchObject({ name: "app-db", type: "sql-database", defaultTTL: "1h", maxTTL: "4h", environment: "dev", secretPath: "/" });
      const answers = JSON.stringify([dynamicSecret, await w.sr.dynamicSecrets.get(w.admin, { ...where(), name: "app-db" }), await w.sr.dynamicSecrets.list(w.admin, where())]);
      expect(answers).not.toContain(ROOT_PASSWORD);
      expect(answers).not.toContain("inputs");
      const [row] = await w.storage.tables.dynamicSecrets.find({ name: "app-db" });
      expect(JSON.stringify(row)).not.toContain(ROOT_PASSWORD);
      expect(JSON.stringify(row)).not.toContain("127.0.0.1");
    });

    it("leases credentials that log in and query, and revokes them so the login fails", async () => {
      const { lease, data, dynamicSecret } = await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "app-db" });
      expect(dynamicSecret.name).toBe("app-db");
      expect(lease).toMatchObject({ status: "active", externalEntityId: data.DB_USERNAME, expiresAt: "2026-03-01T01:00:00.000Z" });
      expect(await countThings(db.name, data)).toEqual([{ n: 2 }]);
      const [stored] = await w.storage.tables.dynamicSecretLeases.find({ id: lease.id });
      expect(JSON.stringify(stored)).not.toContain(data.DB_PASSWORD);

      const { lease: revoked } = await w.sr.dynamicSecrets.revokeLease(w.admin, { ...where(), leaseId: lease.id });
      expect(revoked).toMatchObject({ status: "revoked", statusDetails: "Revoked: revoked on request" });
      await expect(countThings(db.name, data)).rejects.toThrow(/does not exist/);
      await expect(w.sr.dynamicSecrets.revokeLease(w.admin, { ...where(), leaseId: lease.id })).rejects.toThrow("already revoked");
      expect((await w.sr.dynamicSecrets.listLeases(w.admin, { ...where(), name: "app-db" })).leases.map((l) => l.id)).not.toContain(lease.id);
    });

    it("announces lease creation, renewal and revocation to subscribers, without the credentials", async () => {
      const subscription = await w.sr.events.subscribe(w.admin, {
        projectId: w.projectId,
        register: ["create", "renew", "revoke"].map((kind) => ({
          event: `dynamic-secret-lease:${kind}` as "dynamic-secret-lease:create",
          conditions: { environmentSlug: "dev", secretPath: "/**" },
        })),
      });
      const { lease, data } = await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "app-db" });
      await w.sr.dynamicSecrets.renewLease(w.admin, { ...where(), leaseId: lease.id });
      await w.sr.dynamicSecrets.revokeLease(w.admin, { ...where(), leaseId: lease.id });
      const received: { eventType: string; payload: unknown }[] = [];
      for await (const event of subscription.events) {
        received.push({ eventType: event.eventType, payload: event.payload });
        if (received.length === 3) break;
      }
      expect(received).toEqual([
        { eventType: "dynamic-secret-lease:create", payload: { environment: "dev", secretPath: "/", dynamicSecretName: "app-db", leaseId: lease.id, expiresAt: lease.expiresAt, status: "active" } },
        { eventType: "dynamic-secret-lease:renew", payload: expect.objectContaining({ leaseId: lease.id, status: "active", expiresAt: "2026-03-01T02:00:00.000Z" }) },
        { eventType: "dynamic-secret-lease:revoke", payload: expect.objectContaining({ leaseId: lease.id, status: "revoked" }) },
      ]);
      expect(JSON.stringify(w.events)).not.toContain(data.DB_PASSWORD);
    });

    it("renews within maxTTL and refuses beyond it, and refuses a ttl beyond maxTTL", async () => {
      const { lease, data } = await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "app-db", ttl: "2h" });
      const renewed = await w.sr.dynamicSecrets.renewLease(w.admin, { ...where(), leaseId: lease.id, ttl: "1h" });
      expect(renewed.lease).toMatchObject({ version: 2, expiresAt: "2026-03-01T03:00:00.000Z" });
      const [role] = (await asPostgres(`SELECT rolvaliduntil FROM pg_roles WHERE rolname = '${data.DB_USERNAME}'`)) as { rolvaliduntil: Date }[];
      expect(role!.rolvaliduntil.toISOString()).toBe("2026-03-01T03:00:00.000Z");
      await expect(w.sr.dynamicSecrets.renewLease(w.admin, { ...where(), leaseId: lease.id, ttl: "90m" })).rejects.toThrow("beyond the dynamic secret's maxTTL");
      await expect(w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "app-db", ttl: "5h" })).rejects.toThrow("exceeds the dynamic secret's maxTTL");
      await w.sr.dynamicSecrets.revokeLease(w.admin, { ...where(), leaseId: lease.id });
    });

    it("revokes expired leases in the scheduled job and records the outcome on the lease", async () => {
      const { lease, data } = await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "app-db", ttl: "5m" });
      w.clock.advance(4 * 60_000);
      await w.sr.scheduler.runDue();
      expect(await countThings(db.name, data)).toEqual([{ n: 2 }]);
      w.clock.advance(2 * 60_000);
      expect(await w.sr.scheduler.runDue()).toContain("dynamic-secret-lease-expiry");
      await expect(countThings(db.name, data)).rejects.toThrow(/does not exist/);
      const { lease: after } = await w.sr.dynamicSecrets.getLease(w.admin, { ...where(), leaseId: lease.id });
      expect(after).toMatchObject({ status: "revoked", statusDetails: "Revoked: expired" });
      await expect(w.sr.dynamicSecrets.renewLease(w.admin, { ...where(), leaseId: lease.id })).rejects.toThrow("is revoked");
    });

    it("retries a revocation that failed until the provider takes it, and deletion refuses until forced", async () => {
      const root = `srroot_${randomBytes(4).toString("hex")}`;
      await asPostgres(`CREATE ROLE ${root} LOGIN CREATEROLE`);
      try {
        await w.sr.dynamicSecrets.create(w.admin, {
          ...where(),
          name: "fragile",
          provider: {
            type: "sql-database",
            inputs: {
              ...inputs(),
              username: root,
              creationStatement: `CREATE USER "{{username}}" WITH PASSWORD '{{password}}' VALID UNTIL '{{expiration}}'`,
              revocationStatement: `DROP ROLE "{{username}}"`,
            },
          },
          defaultTTL: "10m",
        });
        const first = await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "fragile" });
        const second = await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "fragile" });
        await asPostgres(`ALTER ROLE ${root} NOLOGIN`);

        w.clock.advance(11 * 60_000);
        await w.sr.scheduler.runDue();
        let { lease } = await w.sr.dynamicSecrets.getLease(w.admin, { ...where(), leaseId: first.lease.id });
        expect(lease.status).toBe("revoking");
        expect(lease.statusDetails).toMatch(/^expired: attempt 1 failed: Dynamic secret 'fragile' \(sql-database\): Could not revoke the user: .*not permitted to log in.*; next attempt at /);

        await expect(w.sr.dynamicSecrets.delete(w.admin, { ...where(), name: "fragile" })).rejects.toThrow(/2 of 2 leases could not be revoked, so the dynamic secret was kept/);
        expect((await w.sr.dynamicSecrets.get(w.admin, { ...where(), name: "fragile" })).dynamicSecret.name).toBe("fragile");

        await asPostgres(`ALTER ROLE ${root} LOGIN`);
        w.clock.advance(60_000);
        await w.sr.scheduler.runDue();
        ({ lease } = await w.sr.dynamicSecrets.getLease(w.admin, { ...where(), leaseId: first.lease.id }));
        expect(lease).toMatchObject({ status: "revoking" }); // its retry is 2 minutes after the second failure
        w.clock.advance(2 * 60_000);
        await w.sr.scheduler.runDue();
        ({ lease } = await w.sr.dynamicSecrets.getLease(w.admin, { ...where(), leaseId: first.lease.id }));
        expect(lease).toMatchObject({ status: "revoked", statusDetails: "Revoked: retried by the expiry job" });
        await expect(countThings(db.name, first.data)).rejects.toThrow(/does not exist/);

        expect((await w.sr.dynamicSecrets.getLease(w.admin, { ...where(), leaseId: second.lease.id })).lease.status).toBe("revoked");

        // A provider that is gone for good: deletion refuses, then isForced deletes and says the user may remain.
        const third = await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "fragile" });
        await asPostgres(`ALTER ROLE ${root} NOLOGIN`);
        await expect(w.sr.dynamicSecrets.delete(w.admin, { ...where(), name: "fragile" })).rejects.toThrow(/1 of 1 leases could not be revoked/);
        const { dynamicSecret } = await w.sr.dynamicSecrets.delete(w.admin, { ...where(), name: "fragile", isForced: true });
        expect(dynamicSecret.name).toBe("fragile");
        await expect(w.sr.dynamicSecrets.get(w.admin, { ...where(), name: "fragile" })).rejects.toThrow("not found");
        expect(await w.storage.tables.dynamicSecretLeases.count({ dynamicSecretId: dynamicSecret.id })).toBe(0);
        await asPostgres(`DROP ROLE "${third.data.DB_USERNAME}"`);
      } finally {
        await asPostgres(`DROP ROLE ${root}`).catch(() => undefined);
      }
    });

    it("refuses to delete the project while a lease is live, and deletes it with its dynamic secrets after", async () => {
      const { project } = await w.sr.projects.create(w.admin, { projectName: "Doomed" });
      const at = { projectSlug: project.slug, environmentSlug: "dev", path: "/" };
      await w.sr.dynamicSecrets.create(w.admin, { ...at, name: "db", provider: { type: "sql-database", inputs: inputs() }, defaultTTL: "1h" });
      const { lease, data } = await w.sr.dynamicSecrets.createLease(w.admin, { ...at, dynamicSecretName: "db" });
      await expect(w.sr.projects.delete(w.admin, { projectId: project.id })).rejects.toThrow("The project has 1 dynamic-secret lease not yet revoked");
      expect(await countThings(db.name, data)).toEqual([{ n: 2 }]);
      await w.sr.dynamicSecrets.revokeLease(w.admin, { ...at, leaseId: lease.id });
      await w.sr.projects.delete(w.admin, { projectId: project.id });
      expect(await w.storage.tables.dynamicSecrets.count({ projectId: project.id })).toBe(0);
      expect(await w.storage.tables.dynamicSecretLeases.count({ projectId: project.id })).toBe(0);
    });

    it("revokes every lease before deleting a dynamic secret", async () => {
      await create("short-lived");
      const leases = [];
      for (let i = 0; i < 3; i++) leases.push(await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "short-lived" }));
      await w.sr.dynamicSecrets.delete(w.admin, { ...where(), name: "short-lived" });
      for (const { data } of leases) await expect(countThings(db.name, data)).rejects.toThrow(/does not exist/);
    });
  });
});
