import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

const HOUR = 3600;

/** Machine identities, their universal auth and client secrets, and token renewal, end to end. */
describe.each(backends)("identities API on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let rivalToken: string;
  let memberToken: string;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    const rival = await api.request("POST", "/api/v2/organizations", { token: world.admin.userToken, body: { name: "Rival" } });
    rivalToken = (await createUser(api, world.admin.userToken, rival.body.organization.id, "boss@rival.test", "admin")).token;
    memberToken = (await createUser(api, world.admin.token, world.admin.orgId, "plain@acme.test")).token;
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));
  const admin = () => world.admin.token;

  maybe("gets, lists, renames and re-roles identities, reporting their auth methods", async () => {
    const created = await api.request("POST", "/api/v1/identities", { token: admin(), body: { name: "plain", organizationId: world.admin.orgId } });
    expect(created.body.identity).toMatchObject({ name: "plain", role: "no-access", authMethods: [] });
    const id = created.body.identity.id;
    const bot = await createIdentity(api, admin(), world.admin.orgId, "with-ua");

    const got = await api.request("GET", `/api/v1/identities/${bot.identityId}`, { token: admin() });
    expect(got.status).toBe(200);
    expect(got.body.identity).toMatchObject({ id: bot.identityId, name: "with-ua", role: "member", authMethods: ["universal-auth"], orgId: world.admin.orgId });

    const listed = await api.request("GET", `/api/v1/identities?orgId=${world.admin.orgId}`, { token: admin() });
    expect(listed.body.totalCount).toBe(listed.body.identities.length);
    expect(listed.body.identities.map((i: { name: string }) => i.name)).toEqual(expect.arrayContaining(["bootstrap-admin", "plain", "with-ua"]));
    const own = await api.request("GET", "/api/v1/identities", { token: admin() });
    expect(own.body.identities).toEqual(listed.body.identities);

    const renamed = await api.request("PATCH", `/api/v1/identities/${id}`, { token: admin(), body: { name: "renamed", role: "member" } });
    expect(renamed.body.identity).toMatchObject({ id, name: "renamed", role: "member" });
    expect((await api.request("GET", `/api/v1/identities/${id}`, { token: admin() })).body.identity).toMatchObject({ name: "renamed", role: "member" });

    expectError(await api.request("PATCH", `/api/v1/identities/${id}`, { token: admin(), body: { role: "owner" } }), 422);
    expectError(await api.request("PATCH", `/api/v1/identities/${id}`, { token: admin(), body: { name: "x", metadata: [] } }), 422);
    expectError(await api.request("GET", `/api/v1/identities/${id}`, { token: memberToken }), 403);
    expectError(await api.request("GET", `/api/v1/identities?orgId=${world.admin.orgId}`, { token: memberToken }), 403);
    expectError(await api.request("GET", `/api/v1/identities/${id}`, { token: rivalToken }), 404);
    expectError(await api.request("GET", `/api/v1/identities?orgId=${world.admin.orgId}`, { token: rivalToken }), 404);
    expectError(await api.request("PATCH", `/api/v1/identities/${id}`, { token: rivalToken, body: { name: "stolen" } }), 404);
    expectError(await api.request("GET", `/api/v1/identities/${id}`), 401);
    expectError(await api.request("GET", "/api/v1/identities/00000000-0000-4000-8000-000000000000", { token: admin() }), 404);
  });

  maybe("refuses an identity changing its own role or deleting itself", async () => {
    const me = world.admin.identityId;
    expectError(await api.request("PATCH", `/api/v1/identities/${me}`, { token: admin(), body: { role: "member" } }), 403);
    expectError(await api.request("DELETE", `/api/v1/identities/${me}`, { token: admin() }), 403);
    // Another admin may change it.
    const other = await createIdentity(api, admin(), world.admin.orgId, "second-admin", "admin");
    const demoted = await api.request("PATCH", `/api/v1/identities/${other.identityId}`, { token: admin(), body: { role: "member" } });
    expect(demoted.body.identity.role).toBe("member");
  });

  maybe("deletes an identity: its memberships, secrets and tokens end at once", async () => {
    const project = await createProject(api, admin(), { projectName: "Identity deletion" });
    const bot = await createIdentity(api, admin(), world.admin.orgId, "short-lived");
    await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, { token: admin(), body: { role: "member" } });
    expect((await api.request("GET", `/api/v1/projects/${project.id}`, { token: bot.token })).status).toBe(200);

    expectError(await api.request("DELETE", `/api/v1/identities/${bot.identityId}`, { token: memberToken }), 403);
    expectError(await api.request("DELETE", `/api/v1/identities/${bot.identityId}`, { token: rivalToken }), 404);
    const deleted = await api.request("DELETE", `/api/v1/identities/${bot.identityId}`, { token: admin() });
    expect(deleted.status).toBe(200);
    expect(deleted.body.identity).toMatchObject({ id: bot.identityId, name: "short-lived", authMethods: ["universal-auth"] });
    expectError(await api.request("GET", `/api/v1/projects/${project.id}`, { token: bot.token }), 401);
    expectError(await api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: bot.clientSecret } }), 401);
    expectError(await api.request("GET", `/api/v1/identities/${bot.identityId}`, { token: admin() }), 404);
    const members = await api.request("GET", `/api/v2/workspace/${project.id}/identity-memberships`, { token: admin() });
    expect(members.body.identityMemberships?.map((m: { identityId: string }) => m.identityId) ?? []).not.toContain(bot.identityId);
  });

  maybe("reads, changes and revokes universal auth", async () => {
    const bot = await createIdentity(api, admin(), world.admin.orgId, "ua-life");
    const path = `/api/v1/auth/universal-auth/identities/${bot.identityId}`;
    const got = await api.request("GET", path, { token: admin() });
    expect(got.body.identityUniversalAuth).toMatchObject({ clientId: bot.clientId, identityId: bot.identityId, accessTokenTTL: 2592000 });

    const changed = await api.request("PATCH", path, { token: admin(), body: { accessTokenTTL: HOUR, accessTokenMaxTTL: 2 * HOUR, accessTokenTrustedIps: [{ ipAddress: "0.0.0.0/0" }] } });
    expect(changed.status).toBe(200);
    expect(changed.body.identityUniversalAuth).toMatchObject({ accessTokenTTL: HOUR, accessTokenMaxTTL: 2 * HOUR, clientId: bot.clientId });
    const login = await api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: bot.clientSecret } });
    expect(login.body).toMatchObject({ expiresIn: HOUR, accessTokenMaxTTL: 2 * HOUR });

    expectError(await api.request("PATCH", path, { token: admin(), body: { accessTokenTTL: 3 * HOUR } }), 400);
    expectError(await api.request("PATCH", path, { token: admin(), body: { accessTokenTTL: 0 } }), 422);
    expectError(await api.request("PATCH", path, { token: admin(), body: { clientId: "mine" } }), 422);
    expectError(await api.request("PATCH", path, { token: memberToken, body: { accessTokenTTL: 60 } }), 403);
    expectError(await api.request("GET", path, { token: rivalToken }), 404);
    expectError(await api.request("DELETE", path, { token: rivalToken }), 404);
    expectError(await api.request("GET", path), 401);

    const revoked = await api.request("DELETE", path, { token: admin() });
    expect(revoked.body.identityUniversalAuth).toMatchObject({ clientId: bot.clientId });
    expectError(await api.request("GET", "/api/v1/workspace", { token: login.body.accessToken }), 401);
    expectError(await api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: bot.clientSecret } }), 401);
    expectError(await api.request("GET", path, { token: admin() }), 404);
    expect((await api.request("GET", `/api/v1/identities/${bot.identityId}`, { token: admin() })).body.identity.authMethods).toEqual([]);
    // Attached again, it gets a new client id.
    const again = await api.request("POST", path, { token: admin(), body: {} });
    expect(again.body.identityUniversalAuth.clientId).not.toBe(bot.clientId);
  });

  maybe("lists, reads and revokes client secrets without ever showing them", async () => {
    const bot = await createIdentity(api, admin(), world.admin.orgId, "secrets-life");
    const base = `/api/v1/auth/universal-auth/identities/${bot.identityId}/client-secrets`;
    const second = await api.request("POST", base, { token: admin(), body: { description: "ci" } });
    const listed = await api.request("GET", base, { token: admin() });
    expect(listed.status).toBe(200);
    expect(listed.body.clientSecretData).toHaveLength(2);
    expect(JSON.stringify(listed.body)).not.toContain(bot.clientSecret);
    expect(JSON.stringify(listed.body)).not.toContain(second.body.clientSecret);
    const id = second.body.clientSecretData.id;
    const one = await api.request("GET", `${base}/${id}`, { token: admin() });
    expect(one.body.clientSecretData).toMatchObject({ id, description: "ci", isClientSecretRevoked: false, clientSecretPrefix: second.body.clientSecret.slice(0, 4) });

    const revoked = await api.request("POST", `${base}/${id}/revoke`, { token: admin() });
    expect(revoked.body.clientSecretData).toMatchObject({ id, isClientSecretRevoked: true });
    expectError(await api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: second.body.clientSecret } }), 401);
    expect((await api.request("GET", base, { token: admin() })).body.clientSecretData.map((s: { id: string }) => s.id)).not.toContain(id);
    expect((await api.request("GET", `${base}/${id}`, { token: admin() })).body.clientSecretData.isClientSecretRevoked).toBe(true);
    // The other secret still logs in.
    expect((await api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: bot.clientSecret } })).status).toBe(200);

    expectError(await api.request("GET", `${base}/00000000-0000-4000-8000-000000000000`, { token: admin() }), 404);
    expectError(await api.request("GET", base, { token: memberToken }), 403);
    expectError(await api.request("GET", `${base}/${id}`, { token: rivalToken }), 404);
    expectError(await api.request("POST", `${base}/${id}/revoke`, { token: rivalToken }), 404);
    expectError(await api.request("GET", base), 401);
  });

  maybe("renews an identity token up to accessTokenMaxTTL after its issue", async () => {
    const bot = await createIdentity(api, admin(), world.admin.orgId, "renewer");
    await api.request("PATCH", `/api/v1/auth/universal-auth/identities/${bot.identityId}`, { token: admin(), body: { accessTokenTTL: HOUR, accessTokenMaxTTL: 3 * HOUR } });
    const login = await api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: bot.clientSecret } });
    const token = login.body.accessToken;

    api.clock.advance(50 * 60 * 1000);
    const renewed = await api.request("POST", "/api/v1/auth/token/renew", { body: { accessToken: token } });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toEqual({ accessToken: token, expiresIn: HOUR, accessTokenMaxTTL: 3 * HOUR, tokenType: "Bearer" });
    // Past its first hour, the token still works because it was renewed.
    api.clock.advance(50 * 60 * 1000);
    expect((await api.request("GET", "/api/v1/workspace", { token })).status).toBe(200);
    expect((await api.request("POST", "/api/v1/auth/token/renew", { body: { accessToken: token } })).body.expiresIn).toBe(HOUR);
    api.clock.advance(50 * 60 * 1000);
    // 2h30 after issue: only 30 minutes are left before the max TTL.
    expect((await api.request("POST", "/api/v1/auth/token/renew", { body: { accessToken: token } })).body.expiresIn).toBe(30 * 60);
    api.clock.advance(30 * 60 * 1000);
    expectError(await api.request("POST", "/api/v1/auth/token/renew", { body: { accessToken: token } }), 401);
    expectError(await api.request("GET", "/api/v1/workspace", { token }), 401);

    // A max TTL lowered after issue bounds the renewal of tokens already issued.
    const fresh = (await api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: bot.clientSecret } })).body.accessToken;
    api.clock.advance(40 * 60 * 1000);
    await api.request("PATCH", `/api/v1/auth/universal-auth/identities/${bot.identityId}`, { token: admin(), body: { accessTokenTTL: 60, accessTokenMaxTTL: 30 * 60 } });
    expectError(await api.request("POST", "/api/v1/auth/token/renew", { body: { accessToken: fresh } }), 400);
    expect((await api.request("GET", "/api/v1/workspace", { token: fresh })).status).toBe(200);

    expectError(await api.request("POST", "/api/v1/auth/token/renew", { body: { accessToken: "srt_unknown" } }), 401);
    expectError(await api.request("POST", "/api/v1/auth/token/renew", { body: { accessToken: world.admin.userToken } }), 400);
    expectError(await api.request("POST", "/api/v1/auth/token/renew", { body: {} }), 422);
    expectError(await api.request("POST", "/api/v1/auth/token/renew", { body: { accessToken: fresh, ttl: 99999 } }), 422);
  });
});
