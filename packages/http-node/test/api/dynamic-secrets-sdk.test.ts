import { DynamicSecretProviders, InfisicalSDK, SqlProviders } from "@infisical/sdk";
import { postgresServer, withPostgresLogin } from "@strongroom/dynamic-secrets/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/** The official Infisical Node SDK, unmodified: a PostgreSQL dynamic secret and a lease whose credentials work. */
const pg = await postgresServer();

describe.each(backends)("@infisical/sdk dynamic secrets on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;

  beforeAll(async () => {
    available = pg.available && (await backendAvailable(backend));
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  it("creates a PostgreSQL dynamic secret, leases credentials that log in, renews and revokes the lease, deletes the secret", async (ctx) => {
    if (!available) return ctx.skip();
    const project = await createProject(api, world.admin.token, { projectName: "Dyn SDK" });
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "dyn-bot", "member");
    await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, { token: world.admin.token, body: { role: "admin" } });

    const client = new InfisicalSDK({ siteUrl: api.url });
    await client.auth().universalAuth.login({ clientId: bot.clientId, clientSecret: bot.clientSecret });
    const dynamic = client.dynamicSecrets();
    const where = { projectSlug: project.slug, environmentSlug: "dev" };

    const created = await dynamic.create({
      ...where,
      name: "sdk-postgres",
      defaultTTL: "1h",
      maxTTL: "24h",
      provider: {
        type: DynamicSecretProviders.SqlDatabase,
        inputs: {
          client: SqlProviders.Postgres,
          host: "127.0.0.1",
          port: 5432,
          database: "test",
          username: "postgres",
          password: "unused-under-trust",
          creationStatement: `CREATE USER "{{username}}" WITH ENCRYPTED PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
          revocationStatement: `DROP ROLE "{{username}}";`,
          renewStatement: `ALTER ROLE "{{username}}" VALID UNTIL '{{expiration}}';`,
        },
      },
    });
    expect(created).toMatchObject({ name: "sdk-postgres", type: "sql-database", defaultTTL: "1h", maxTTL: "24h" });
    expect(JSON.stringify(created)).not.toContain("unused-under-trust");

    const { lease, data } = (await dynamic.leases.create({ ...where, dynamicSecretName: "sdk-postgres", ttl: "30m" })) as unknown as {
      lease: { id: string; expiresAt: string };
      data: { DB_USERNAME: string; DB_PASSWORD: string };
    };
    const login = { host: "127.0.0.1", port: 5432, database: "test", ...data };
    expect(await withPostgresLogin(login, "SELECT current_user AS me")).toEqual([{ me: data.DB_USERNAME }]);

    const renewed = await dynamic.leases.renew(lease.id, { ...where, ttl: "1h" });
    expect(new Date(renewed.lease.expiresAt).getTime()).toBe(new Date(lease.expiresAt).getTime() + 3_600_000);

    const revoked = await dynamic.leases.delete(lease.id, where);
    expect(revoked.lease.id).toBe(lease.id);
    await expect(withPostgresLogin(login, "SELECT 1")).rejects.toThrow(/does not exist/);

    const deleted = await dynamic.delete("sdk-postgres", where);
    expect(deleted.name).toBe("sdk-postgres");
  });
});
