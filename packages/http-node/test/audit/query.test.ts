import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * GET /api/v1/organization/audit-logs as Infisical serves it: organization admins read their
 * organization's entries; a project member reads a project's only with `audit-logs` `read`
 * (not viewers or members by default); Infisical's filters; newest first; limit ≤ 1000.
 */
describe.each(backends)("audit log query on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let projectId: string;
  let other: string;
  const logs = (query: string, token = world.admin.token) => api.request("GET", `/api/v1/organization/audit-logs?${query}`, { token });

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    projectId = (await createProject(api, world.admin.token)).id;
    other = (await createProject(api, world.admin.token, { projectName: "Other" })).id;
    const put = (project: string, name: string, environment = "dev") =>
      api.request("POST", `/api/v4/secrets/${name}`, { token: world.admin.token, body: { projectId: project, environment, secretPath: "/", secretValue: "x" } });
    await put(projectId, "DB_URL");
    await put(projectId, "API_KEY", "prod");
    await put(other, "DB_URL");
    await api.request("GET", `/api/v4/secrets/DB_URL?projectId=${projectId}&environment=dev`, { token: world.admin.token, headers: { "user-agent": "audit-query-test" } });
    await api.strongroom.audit.flush();
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  it("answers an admin with the organization's entries, newest first, in Infisical's shape", async (ctx) => {
    if (!available) return ctx.skip();
    const res = await logs("limit=100");
    expect(res.status).toBe(200);
    const types = res.body.auditLogs.map((e: any) => e.event.type);
    expect(types.slice(0, 6)).toEqual(["get-secret", "create-secret", "create-secret", "create-secret", "create-project", "create-project"]);
    const read = res.body.auditLogs[0];
    expect(read).toMatchObject({
      projectId,
      environment: "dev",
      secretPath: "/",
      outcome: "success",
      actor: { type: "identity", metadata: { id: world.admin.identityId } },
      event: { type: "get-secret", metadata: { secretName: "DB_URL" } },
      userAgent: "audit-query-test",
      ipAddress: expect.stringMatching(/127\.0\.0\.1/),
    });
    expect(JSON.stringify(res.body)).not.toContain('"secretValue"');
    // A change's entry names what it created, though it is written before the answer exists.
    const created = res.body.auditLogs.find((e: any) => e.event.type === "create-secret" && e.environment === "prod");
    expect(created.event.metadata).toMatchObject({ secretName: "API_KEY", secretId: expect.stringMatching(/^[0-9a-f-]{36}$/), secretVersion: 1 });
  });

  it("filters as Infisical does", async (ctx) => {
    if (!available) return ctx.skip();
    const count = async (query: string) => (await logs(query)).body.auditLogs.length;
    expect(await count(`projectId=${projectId}&eventType=create-secret`)).toBe(2);
    expect(await count(`eventType=create-secret`)).toBe(3);
    expect(await count(`secretKey=DB_URL`)).toBe(3);
    expect(await count(`projectId=${projectId}&secretKey=DB_URL`)).toBe(2);
    expect(await count(`projectId=${projectId}&environment=prod`)).toBe(1);
    expect(await count(`actorType=identity&actor=${world.admin.identityId}&eventType=get-secret`)).toBe(1);
    expect(await count(`actorType=user&eventType=create-secret`)).toBe(0);
    expect(await count(`eventType=create-secret&startDate=2000-01-01T00:00:00.000Z&endDate=2999-01-01T00:00:00.000Z`)).toBe(3);
    expect(await count(`eventType=create-secret&endDate=2000-01-01T00:00:00.000Z`)).toBe(0);
    expect(await count(`eventType=create-secret&offset=1&limit=1`)).toBe(1);
    expectError(await logs("limit=1001"), 422);
  });

  it("lets a project member read the project's entries only with audit-logs read", async (ctx) => {
    if (!available) return ctx.skip();
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "auditor");
    const join = (role: string) => api.request("PATCH", `/api/v2/workspace/${projectId}/identity-memberships/${bot.identityId}`, { token: world.admin.token, body: { roles: [{ role, isTemporary: false }] } });
    await api.request("POST", `/api/v2/workspace/${projectId}/identity-memberships/${bot.identityId}`, { token: world.admin.token, body: { role: "viewer" } });
    expectError(await logs(`projectId=${projectId}`, bot.token), 403);
    expectError(await logs(``, bot.token), 403);
    await join("member");
    expectError(await logs(`projectId=${projectId}`, bot.token), 403);
    const role = await api.request("POST", `/api/v1/projects/${projectId}/roles`, {
      token: world.admin.token,
      body: { slug: "auditor", name: "Auditor", permissions: [{ subject: "audit-logs", action: ["read"] }] },
    });
    expect(role.status).toBe(200);
    expect((await join("auditor")).status).toBe(200);
    const res = await logs(`projectId=${projectId}&limit=1000`, bot.token);
    expect(res.status).toBe(200);
    expect(res.body.auditLogs.length).toBeGreaterThan(0);
    expect(res.body.auditLogs.every((e: any) => e.projectId === projectId)).toBe(true);
    // Not the other project's, nor the organization's.
    expect((await logs(`projectId=${other}`, bot.token)).status).toBeGreaterThanOrEqual(403);
    expectError(await logs(``, bot.token), 403);
    // The refusals are on record too, as denied.
    await api.strongroom.audit.flush();
    const denied = await logs(`eventType=get-audit-logs&actor=${bot.identityId}`);
    expect(denied.body.auditLogs.filter((e: any) => e.outcome === "denied").length).toBeGreaterThanOrEqual(3);
  });
});
