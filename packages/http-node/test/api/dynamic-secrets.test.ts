import { postgresServer, withPostgresLogin } from "@strongroom/dynamic-secrets/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/** `/api/v1/dynamic-secrets` over HTTP as curl would call it: shapes, query strings, bodies on DELETE, error bodies. */
const pg = await postgresServer();
const base = "/api/v1/dynamic-secrets";

describe.each(backends)("dynamic secrets over HTTP on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let project: { id: string; slug: string };
  let available = true;
  const inputs = { client: "postgres", host: "127.0.0.1", port: 5432, database: "test", username: "postgres", password: "http-root-password-55" };
  const q = () => `projectSlug=${project.slug}&environmentSlug=dev&path=/`;
  const where = () => ({ projectSlug: project.slug, environmentSlug: "dev", path: "/" });

  beforeAll(async () => {
    available = pg.available && (await backendAvailable(backend));
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    project = await createProject(api, world.admin.token, { projectName: "Dyn HTTP" });
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  it("creates, gets, lists, renames and deletes a dynamic secret, never answering its inputs", async (ctx) => {
    if (!available) return ctx.skip();
    const token = world.admin.token;
    const created = await api.request("POST", base, { token, body: { ...where(), name: "orders-db", provider: { type: "sql-database", inputs }, defaultTTL: "1h", maxTTL: "1d" } });
    expect(created.status).toBe(200);
    expect(created.body.dynamicSecret).toMatchObject({ name: "orders-db", type: "sql-database", defaultTTL: "1h", maxTTL: "1d", gatewayId: null });

    const got = await api.request("GET", `${base}/orders-db?${q()}`, { token });
    expect(got.body.dynamicSecret.id).toBe(created.body.dynamicSecret.id);
    const listed = await api.request("GET", `${base}?${q()}`, { token });
    expect(listed.body.dynamicSecrets.map((d: { name: string }) => d.name)).toEqual(["orders-db"]);
    for (const answer of [created, got, listed]) expect(JSON.stringify(answer.body)).not.toContain("http-root-password-55");

    const renamed = await api.request("PATCH", `${base}/orders-db`, { token, body: { ...where(), data: { newName: "orders", defaultTTL: "2h" } } });
    expect(renamed.body.dynamicSecret).toMatchObject({ name: "orders", defaultTTL: "2h", version: 2 });
    expectError(await api.request("GET", `${base}/orders-db?${q()}`, { token }), 404, "NotFound");

    const deleted = await api.request("DELETE", `${base}/orders`, { token, body: { ...where(), isForced: false } });
    expect(deleted.body.dynamicSecret.name).toBe("orders");
  });

  it("leases, reads, lists, renews and revokes over HTTP; the credentials work until revoked", async (ctx) => {
    if (!available) return ctx.skip();
    const token = world.admin.token;
    await api.request("POST", base, { token, body: { ...where(), name: "ledger", provider: { type: "sql-database", inputs }, defaultTTL: "1h", maxTTL: "3h" } });
    const created = await api.request("POST", `${base}/leases`, { token, body: { ...where(), dynamicSecretName: "ledger" } });
    expect(created.status).toBe(200);
    const { lease, data, dynamicSecret } = created.body;
    expect(dynamicSecret.name).toBe("ledger");
    expect(Object.keys(data).sort()).toEqual(["DB_PASSWORD", "DB_USERNAME"]);
    expect(lease.expireAt).toBe(lease.expiresAt);
    const login = { host: "127.0.0.1", port: 5432, database: "test", ...data };
    expect(await withPostgresLogin(login, "SELECT 1 AS one")).toEqual([{ one: 1 }]);

    const got = await api.request("GET", `${base}/leases/${lease.id}?${q()}`, { token });
    expect(got.body.lease).toMatchObject({ id: lease.id, status: "active", dynamicSecret: { name: "ledger" } });
    expect(JSON.stringify(got.body)).not.toContain(data.DB_PASSWORD);
    const listed = await api.request("GET", `${base}/ledger/leases?${q()}`, { token });
    expect(listed.body.leases.map((l: { id: string }) => l.id)).toEqual([lease.id]);

    const renewed = await api.request("POST", `${base}/leases/${lease.id}/renew`, { token, body: { ...where(), ttl: "1h" } });
    expect(renewed.body.lease.version).toBe(2);
    expectError(await api.request("POST", `${base}/leases/${lease.id}/renew`, { token, body: { ...where(), ttl: "2h" } }), 400, "BadRequest");

    const revoked = await api.request("DELETE", `${base}/leases/${lease.id}`, { token, body: where() });
    expect(revoked.body.lease.status).toBe("revoked");
    await expect(withPostgresLogin(login, "SELECT 1")).rejects.toThrow(/does not exist/);
    await api.request("DELETE", `${base}/ledger`, { token, body: where() });
  });

  it("answers bad input, unknown names and missing permissions with clear error bodies", async (ctx) => {
    if (!available) return ctx.skip();
    const token = world.admin.token;
    const invalid = expectError(
      await api.request("POST", base, { token, body: { ...where(), name: "x", provider: { type: "sql-database", inputs: { ...inputs, client: "sqlite" } }, defaultTTL: "1h" } }),
      422,
      "ValidationFailure",
    );
    expect(JSON.stringify(invalid.message)).toContain("provider.inputs.client");
    const refused = expectError(
      await api.request("POST", base, { token, body: { ...where(), name: "x", provider: { type: "sql-database", inputs: { ...inputs, port: 1 } }, defaultTTL: "1h" } }),
      400,
      "BadRequest",
    );
    expect(refused.message).toMatch(/^Dynamic secret 'x' \(sql-database\): Could not connect to postgres at 127\.0\.0\.1:1: .*ECONNREFUSED/);
    expectError(await api.request("POST", `${base}/leases`, { token, body: { ...where(), dynamicSecretName: "nope" } }), 404, "NotFound");
    expectError(await api.request("GET", `${base}/leases/00000000-0000-4000-8000-000000000000?${q()}`, { token }), 404, "NotFound");
    expectError(await api.request("GET", `${base}?projectSlug=no-such-project&environmentSlug=dev`, { token }), 404, "NotFound");

    await api.request("POST", base, { token, body: { ...where(), name: "guarded", provider: { type: "sql-database", inputs }, defaultTTL: "1h" } });
    const viewer = await createUser(api, token, world.admin.orgId, "dyn-viewer@acme.test");
    await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token, body: { usernames: [viewer.email], roleSlugs: ["viewer"] } });
    expect((await api.request("GET", `${base}/guarded?${q()}`, { token: viewer.token })).status).toBe(200);
    expectError(await api.request("POST", `${base}/leases`, { token: viewer.token, body: { ...where(), dynamicSecretName: "guarded" } }), 403, "PermissionDenied");
    expectError(await api.request("DELETE", `${base}/guarded`, { token: viewer.token, body: where() }), 403, "PermissionDenied");
    await api.request("DELETE", `${base}/guarded`, { token, body: where() });
  });
});
