import { createTestWorld, forEachStore, memoryStore, type TestWorld } from "@strongroom/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dynamicSecretProviders } from "../src/index.js";
import { MARIADB_SERVER, mariadbServer, postgresServer } from "../src/testing.js";
import { asPostgres, countThings, dynamicWorld, thingsDatabase } from "./world.js";

/** Who may do what with dynamic secrets, where a provider may connect, and what bad input gets. */
const pg = await postgresServer();
const maria = await mariadbServer();

const pgInputs = (database = "test") => ({ client: "postgres", host: "127.0.0.1", port: 5432, database, username: "postgres" });
const rolesNamed = async (prefix: string) => ((await asPostgres(`SELECT 1 FROM pg_roles WHERE rolname LIKE '${prefix}%'`)) as unknown[]).length;

describe("where providers may connect", () => {
  let w: TestWorld;
  const where = () => ({ projectSlug: w.projectSlug, environmentSlug: "dev", path: "/" });
  const create = (host: string) =>
    w.sr.dynamicSecrets.create(w.admin, { ...where(), name: "db", provider: { type: "sql-database", inputs: { ...pgInputs(), host } }, defaultTTL: "1h" });
  afterAll(async () => w?.close());

  it("refuses loopback and private addresses unless STRONGROOM_ALLOW_PRIVATE_DATABASES allows them, naming the setting", async () => {
    w = await createTestWorld({ dynamicSecretProviders, config: { allowPrivateTargets: true } });
    await expect(create("127.0.0.1")).rejects.toThrow(
      "Refusing to connect to '127.0.0.1' (127.0.0.1): loopback addresses are refused unless private targets are allowed (STRONGROOM_ALLOW_PRIVATE_DATABASES=true)",
    );
    await expect(create("localhost")).rejects.toThrow(/Refusing to connect to 'localhost' \((127\.0\.0\.1|::1)\): loopback/);
    await expect(create("10.1.2.3")).rejects.toThrow("private addresses are refused");
    expect(await w.storage.tables.dynamicSecrets.count()).toBe(0);
  });

  it("never connects to metadata or link-local addresses, whatever the setting", async () => {
    await w.close();
    w = await createTestWorld({ dynamicSecretProviders, config: { allowPrivateDatabases: true } });
    await expect(create("169.254.169.254")).rejects.toThrow("metadata addresses are never allowed");
    await expect(create("[fe80::1]")).rejects.toThrow("link-local addresses are never allowed");
    await expect(create("[::ffff:169.254.169.254]")).rejects.toThrow("metadata addresses are never allowed");
  });

  it("says when the server offers no providers, or not the one asked for", async () => {
    const bare = await createTestWorld();
    try {
      const input = { projectSlug: bare.projectSlug, environmentSlug: "dev", name: "db", provider: { type: "sql-database", inputs: pgInputs() }, defaultTTL: "1h" };
      await expect(bare.sr.dynamicSecrets.create(bare.admin, input)).rejects.toThrow("This server offers no dynamic secret providers, so 'sql-database' is not available");
    } finally {
      await bare.close();
    }
    await expect(
      w.sr.dynamicSecrets.create(w.admin, { ...where(), name: "x", provider: { type: "mongo-db", inputs: {} }, defaultTTL: "1h" }),
    ).rejects.toThrow("Unknown dynamic secret provider 'mongo-db'; this server offers sql-database, redis");
  });
});

describe.skipIf(!pg.available)("bad input", () => {
  let w: TestWorld;
  const where = () => ({ projectSlug: w.projectSlug, environmentSlug: "dev", path: "/" });
  beforeAll(async () => {
    w = await dynamicWorld(memoryStore);
  });
  afterAll(async () => w?.close());

  it.each([
    ["provider inputs that do not fit the provider", { provider: { type: "sql-database", inputs: { client: "oracledb", host: "h" } } }, "ValidationFailure", /provider\.inputs\.client: /],
    ["a template variable the statement may not use", { provider: { type: "sql-database", inputs: { ...pgInputs(), revocationStatement: "DROP ROLE {{password}}" } } }, "ValidationFailure", /provider\.inputs\.revocationStatement: unknown template variable \{\{password\}\}/],
    ["a defaultTTL that is not a duration", { defaultTTL: "soon" }, "BadRequest", /defaultTTL "soon" is not a duration/],
    ["a defaultTTL under a minute", { defaultTTL: "30s" }, "BadRequest", /defaultTTL must be at least 1m/],
    ["a defaultTTL beyond maxTTL", { defaultTTL: "2h", maxTTL: "1h" }, "BadRequest", /defaultTTL must not exceed maxTTL/],
    ["a name that is not a slug", { name: "App DB" }, "ValidationFailure", /name: /],
  ])("refuses %s", async (_name, change, code, message) => {
    const input = { ...where(), name: "db", provider: { type: "sql-database", inputs: pgInputs() }, defaultTTL: "1h", ...change };
    const error = await w.sr.dynamicSecrets.create(w.admin, input as never).catch((e: { code: string; message: string }) => e);
    expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(await w.storage.tables.dynamicSecrets.count()).toBe(0);
  });

  it.skipIf(!maria.available)("refuses root credentials the database rejects, saying why and without the password", async () => {
    const inputs = { client: "mysql", ...MARIADB_SERVER, password: "wrong-root-password-31" };
    const error = await w.sr.dynamicSecrets
      .create(w.admin, { ...where(), name: "maria", provider: { type: "sql-database", inputs }, defaultTTL: "1h" })
      .catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^Dynamic secret 'maria' \(sql-database\): Could not connect to mysql2 at 127\.0\.0\.1:3306: Access denied for user 'root'/);
    expect((error as Error).message).not.toContain("wrong-root-password-31");
    expect(await w.storage.tables.dynamicSecrets.count()).toBe(0);
  });

  it("refuses a name taken in the folder, and takes it in another folder", async () => {
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "other" });
    await w.sr.dynamicSecrets.create(w.admin, { ...where(), name: "db", provider: { type: "sql-database", inputs: pgInputs() }, defaultTTL: "1h" });
    await expect(
      w.sr.dynamicSecrets.create(w.admin, { ...where(), name: "db", provider: { type: "sql-database", inputs: pgInputs() }, defaultTTL: "1h" }),
    ).rejects.toThrow("A dynamic secret named 'db' already exists in dev:/");
    await w.sr.dynamicSecrets.create(w.admin, { ...where(), path: "/other", name: "db", provider: { type: "sql-database", inputs: pgInputs() }, defaultTTL: "1h" });
    await expect(w.sr.dynamicSecrets.get(w.admin, { ...where(), path: "/nowhere", name: "db" })).rejects.toThrow("Folder '/nowhere' not found");
  });

  it("stops at the lease limit without creating a user, and counts revoked leases out", async () => {
    const limited = await dynamicWorld(memoryStore, { config: { dynamicSecretLeaseLimit: 2 } });
    try {
      const at = { projectSlug: limited.projectSlug, environmentSlug: "dev", path: "/" };
      await limited.sr.dynamicSecrets.create(limited.admin, { ...at, name: "db", provider: { type: "sql-database", inputs: pgInputs() }, defaultTTL: "1h" });
      const first = await limited.sr.dynamicSecrets.createLease(limited.admin, { ...at, dynamicSecretName: "db" });
      await limited.sr.dynamicSecrets.createLease(limited.admin, { ...at, dynamicSecretName: "db" });
      const before = await rolesNamed("sr");
      await expect(limited.sr.dynamicSecrets.createLease(limited.admin, { ...at, dynamicSecretName: "db" })).rejects.toThrow(
        "This dynamic secret already has 2 active leases, the most it may have",
      );
      expect(await rolesNamed("sr")).toBe(before);
      await limited.sr.dynamicSecrets.revokeLease(limited.admin, { ...at, leaseId: first.lease.id });
      await limited.sr.dynamicSecrets.createLease(limited.admin, { ...at, dynamicSecretName: "db" });
      await limited.sr.dynamicSecrets.delete(limited.admin, { ...at, name: "db" });
    } finally {
      await limited.close();
    }
  });
});

describe.skipIf(!pg.available)("concurrent leases", () => {
  forEachStore("the lease limit", (store) => {
    it("holds under concurrent requests, and the users of refused leases are removed again", async () => {
      const w = await dynamicWorld(store, { config: { dynamicSecretLeaseLimit: 3 } });
      try {
        const at = { projectSlug: w.projectSlug, environmentSlug: "dev", path: "/" };
        await w.sr.dynamicSecrets.create(w.admin, { ...at, name: "db", provider: { type: "sql-database", inputs: pgInputs() }, defaultTTL: "1h" });
        const before = await rolesNamed("sr");
        const attempts = await Promise.allSettled(Array.from({ length: 6 }, () => w.sr.dynamicSecrets.createLease(w.admin, { ...at, dynamicSecretName: "db" })));
        const granted = attempts.filter((a) => a.status === "fulfilled");
        expect(granted).toHaveLength(3);
        for (const refused of attempts.filter((a) => a.status === "rejected")) {
          expect((refused as PromiseRejectedResult).reason.message).toContain("already has 3 active leases");
        }
        expect(await rolesNamed("sr")).toBe(before + 3);
        await w.sr.dynamicSecrets.delete(w.admin, { ...at, name: "db" });
        expect(await rolesNamed("sr")).toBe(before);
      } finally {
        await w.close();
      }
    });
  });
});

describe.skipIf(!pg.available)("permissions", () => {
  forEachStore("the dynamic-secrets subject", (store) => {
    let w: TestWorld;
    let db: { name: string; drop(): Promise<void> };
    const where = (environmentSlug = "dev") => ({ projectSlug: w.projectSlug, environmentSlug, path: "/" });
    beforeAll(async () => {
      db = await thingsDatabase();
      w = await dynamicWorld(store);
      for (const env of ["dev", "staging"]) {
        await w.sr.dynamicSecrets.create(w.admin, { ...where(env), name: "db", provider: { type: "sql-database", inputs: pgInputs(db.name) }, defaultTTL: "1h" });
      }
    });
    afterAll(async () => {
      await w?.close();
      await db?.drop();
    });

    it("lets members read and lease but not create, edit or delete", async () => {
      const member = await w.userWith(["member"]);
      expect((await w.sr.dynamicSecrets.list(member, where())).dynamicSecrets.map((d) => d.name)).toEqual(["db"]);
      const { lease, data } = await w.sr.dynamicSecrets.createLease(member, { ...where(), dynamicSecretName: "db" });
      expect(await countThings(db.name, data)).toEqual([{ n: 2 }]);
      await w.sr.dynamicSecrets.revokeLease(member, { ...where(), leaseId: lease.id });
      const input = { ...where(), name: "mine", provider: { type: "sql-database", inputs: pgInputs(db.name) }, defaultTTL: "1h" };
      await expect(w.sr.dynamicSecrets.create(member, input)).rejects.toThrow("create-root-credential");
      await expect(w.sr.dynamicSecrets.update(member, { ...where(), name: "db", data: { defaultTTL: "2h" } })).rejects.toThrow("edit-root-credential");
      await expect(w.sr.dynamicSecrets.delete(member, { ...where(), name: "db" })).rejects.toThrow("delete-root-credential");
    });

    it("lets viewers see dynamic secrets but not lease them", async () => {
      const viewer = await w.userWith(["viewer"]);
      expect((await w.sr.dynamicSecrets.get(viewer, { ...where(), name: "db" })).dynamicSecret.name).toBe("db");
      await expect(w.sr.dynamicSecrets.createLease(viewer, { ...where(), dynamicSecretName: "db" })).rejects.toMatchObject({ code: "PermissionDenied" });
    });

    it("applies environment and secretPath conditions", async () => {
      const slug = await w.role("staging-leaser", [
        { subject: "dynamic-secrets", action: ["read", "lease"], conditions: { environment: "staging", secretPath: { $glob: "/**" } } },
      ]);
      const { actor } = await w.identityWith([slug]);
      await expect(w.sr.dynamicSecrets.createLease(actor, { ...where("dev"), dynamicSecretName: "db" })).rejects.toMatchObject({ code: "PermissionDenied" });
      const { lease } = await w.sr.dynamicSecrets.createLease(actor, { ...where("staging"), dynamicSecretName: "db" });
      // A lease of another folder is as unknown as a missing one.
      await expect(w.sr.dynamicSecrets.getLease(w.admin, { ...where("dev"), leaseId: lease.id })).rejects.toMatchObject({ code: "NotFound" });
      await w.sr.dynamicSecrets.revokeLease(actor, { ...where("staging"), leaseId: lease.id });
    });

    it("accepts Infisical's read-root-credential for reading, and never shows root inputs even then", async () => {
      const slug = await w.role("root-reader", [{ subject: "dynamic-secrets", action: ["read-root-credential"] }]);
      const { actor } = await w.identityWith([slug]);
      const { dynamicSecret } = await w.sr.dynamicSecrets.get(actor, { ...where(), name: "db" });
      expect(Object.keys(dynamicSecret)).not.toContain("inputs");
    });

    it("retires dynamic secrets with their folder and revokes their leases in the expiry job", async () => {
      await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "gone" });
      const at = { ...where(), path: "/gone" };
      await w.sr.dynamicSecrets.create(w.admin, { ...at, name: "db", provider: { type: "sql-database", inputs: pgInputs(db.name) }, defaultTTL: "1h" });
      const { data } = await w.sr.dynamicSecrets.createLease(w.admin, { ...at, dynamicSecretName: "db" });
      await w.sr.folders.delete(w.admin, { projectId: w.projectId, environment: "dev", path: "/", folderIdOrName: "gone" });
      expect(await countThings(db.name, data)).toEqual([{ n: 2 }]);
      w.clock.advance(60_000);
      await w.sr.scheduler.runDue();
      await expect(countThings(db.name, data)).rejects.toThrow(/does not exist/);
      // Nothing of it is left once its leases are revoked.
      expect(await w.storage.tables.dynamicSecrets.count({ deletedAt: { ne: null } })).toBe(0);
      expect(await w.storage.tables.dynamicSecrets.count({ envId: { ne: "" } })).toBe(2);
    });
  });
});
