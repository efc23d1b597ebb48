import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

const DAY = 24 * 60 * 60 * 1000;

describe.each(backends)("foundation API on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  maybe("serves the status endpoint without a token", async () => {
    const res = await api.request("GET", "/api/status");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  maybe("bootstraps only once", async () => {
    const again = await api.request("POST", "/api/v1/admin/bootstrap", { body: { email: "x@y.test", password: "long password", organization: "Other" } });
    expectError(again, 400, "BadRequest");
  });

  maybe("logs a user in and refuses a wrong password with 401", async () => {
    const ok = await api.request("POST", "/api/v1/auth/login", { body: { email: world.admin.email, password: world.admin.password } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ tokenType: "Bearer", expiresIn: 86400 });
    expect(ok.body.accessToken).toMatch(/^srt_/);
    expectError(await api.request("POST", "/api/v1/auth/login", { body: { email: world.admin.email, password: "nope nope" } }), 401, "UnauthorizedError");
    expectError(await api.request("POST", "/api/v1/auth/login", { body: { email: "ghost@acme.test", password: "nope nope" } }), 401);
  });

  maybe("rejects missing, malformed and unknown tokens", async () => {
    expectError(await api.request("POST", "/api/v1/projects", { body: { projectName: "x" } }), 401);
    expectError(await api.request("POST", "/api/v1/projects", { token: "srt_forged", body: { projectName: "x" } }), 401);
    expectError(
      await api.request("POST", "/api/v1/projects", { headers: { authorization: "Basic abc" }, body: { projectName: "x" } }),
      401,
    );
  });

  maybe("creates users only as an organization admin", async () => {
    const member = await createUser(api, world.admin.token, world.admin.orgId, "member1@acme.test");
    const res = await api.request("POST", `/api/v1/organizations/${world.admin.orgId}/users`, {
      token: member.token,
      body: { email: "member2@acme.test", password: "long password" },
    });
    expectError(res, 403, "PermissionDenied");
    const dup = await api.request("POST", `/api/v1/organizations/${world.admin.orgId}/users`, {
      token: world.admin.token,
      body: { email: "member1@acme.test", password: "long password" },
    });
    expectError(dup, 400);
  });

  maybe("machine identities log in with universal auth, with or without a trailing slash", async () => {
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "deployer");
    expect(bot.token).toMatch(/^srt_/);
    const slash = await api.request("POST", "/api/v1/auth/universal-auth/login/", { body: { clientId: bot.clientId, clientSecret: bot.clientSecret } });
    expect(slash.status).toBe(200);
    expect(slash.body).toMatchObject({ expiresIn: 2592000, accessTokenMaxTTL: 2592000, tokenType: "Bearer" });
  });

  maybe("locks a client id for 5 minutes after 3 failed logins", async () => {
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "lockme");
    for (let i = 0; i < 3; i++) {
      expectError(await api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: "wrong" } }), 401);
    }
    const locked = await api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: bot.clientSecret } });
    expectError(locked, 429, "RateLimitExceeded");
    api.clock.advance(5 * 60 * 1000 + 1000);
    const unlocked = await api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: bot.clientSecret } });
    expect(unlocked.status).toBe(200);
  });

  maybe("revokes an access token at once", async () => {
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "revocable");
    expect((await api.request("POST", "/api/v1/projects", { token: bot.token, body: { projectName: "Before revoke" } })).status).toBe(200);
    const revoked = await api.request("POST", "/api/v1/auth/token/revoke", { body: { accessToken: bot.token } });
    expect(revoked.status).toBe(200);
    expectError(await api.request("POST", "/api/v1/projects", { token: bot.token, body: { projectName: "After revoke" } }), 401);
    // unknown tokens get the same answer, and other tokens keep working
    expect((await api.request("POST", "/api/v1/auth/token/revoke", { body: { accessToken: "srt_unknown" } })).status).toBe(200);
    expect((await api.request("GET", "/api/status", { token: world.admin.token })).status).toBe(200);
  });

  maybe("expires identity tokens after their 30-day TTL", async () => {
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "short-lived");
    const ok = await api.request("POST", "/api/v1/projects", { token: bot.token, body: { projectName: "Before expiry" } });
    expect(ok.status).toBe(200);
    api.clock.advance(30 * DAY + 1000);
    expectError(await api.request("POST", "/api/v1/projects", { token: bot.token, body: { projectName: "After expiry" } }), 401);
    // every earlier token has expired too: carry on with fresh ones
    const login = await api.request("POST", "/api/v1/auth/login", { body: { email: world.admin.email, password: world.admin.password } });
    const userToken = login.body.accessToken as string;
    const admin = await createIdentity(api, userToken, world.admin.orgId, "admin-2", "admin");
    world = { admin: { ...world.admin, userToken, token: admin.token, identityId: admin.identityId } };
  });

  maybe("creates a project with SPEC.md's full Project object", async () => {
    const res = await api.request("POST", "/api/v1/projects", {
      token: world.admin.token,
      body: { projectName: "Billing", projectDescription: "Money", slug: "billing-app", type: "secret-manager", hasDeleteProtection: true },
    });
    expect(res.status).toBe(200);
    const p = res.body.project;
    expect(Object.keys(p).sort()).toEqual(
      [
        "id", "_id", "name", "slug", "type", "description", "defaultProduct", "upgradeStatus", "orgId", "kmsCertificateKeyId",
        "kmsSecretManagerKeyId", "createdAt", "updatedAt", "environments", "deletedEnvironments", "autoCapitalization",
        "hasDeleteProtection", "secretSharing", "showSnapshotsLegacy", "enforceEncryptedSecretManagerSecretMetadata",
        "secretBlindIndexEnabled", "isLegacyAdditionalPrivilegesEnabled", "version", "pitVersionLimit", "auditLogsRetentionDays",
        "secretDetectionIgnoreValues",
      ].sort(),
    );
    expect(p).toMatchObject({ name: "Billing", slug: "billing-app", description: "Money", type: "secret-manager", hasDeleteProtection: true, orgId: world.admin.orgId });
    expect(p._id).toBe(p.id);
    expect(p.environments.map((e: { slug: string }) => e.slug)).toEqual(["dev", "staging", "prod"]);
    expect(p.deletedEnvironments).toEqual([]);
    expect(p.kmsSecretManagerKeyId).not.toBe(p.kmsCertificateKeyId);
  });

  maybe("accepts every project type Strongroom serves and skips default environments on request", async () => {
    for (const type of ["secret-manager", "cert-manager", "kms", "agent-vault"]) {
      const p = await createProject(api, world.admin.token, { projectName: `T ${type}`, type, shouldCreateDefaultEnvs: false });
      expect(p.environments).toEqual([]);
    }
    expectError(await api.request("POST", "/api/v1/projects", { token: world.admin.token, body: { projectName: "x", type: "vault" } }), 422, "ValidationFailure");
  });

  maybe("refuses SPEC's project types that Strongroom has no product for with 422 naming the supported ones", async () => {
    const before = (await api.request("GET", "/api/v1/projects", { token: world.admin.token })).body.projects.length;
    for (const [path, type] of [["/api/v1/projects", "secret-scanning"], ["/api/v1/projects", "pam"], ["/api/v2/workspace", "pam"]]) {
      const body = expectError(await api.request("POST", path, { token: world.admin.token, body: { projectName: `T ${type}`, type } }), 422, "ValidationFailure");
      expect(JSON.stringify(body.message)).toContain(`Strongroom does not offer ${type} projects; the supported types are secret-manager, cert-manager, kms, agent-vault`);
    }
    expect((await api.request("GET", "/api/v1/projects", { token: world.admin.token })).body.projects).toHaveLength(before);
  });

  maybe("enforces SPEC.md's project limits on both sides of each bound", async () => {
    const post = (body: Record<string, unknown>) => api.request("POST", "/api/v1/projects", { token: world.admin.token, body: { projectName: "Bounds", ...body } });
    expect((await post({ projectName: "n".repeat(64) })).status).toBe(200);
    expectError(await post({ projectName: "n".repeat(65) }), 422);
    expect((await post({ projectDescription: "d".repeat(1024) })).status).toBe(200);
    expectError(await post({ projectDescription: "d".repeat(1025) }), 422);
    expectError(await post({ slug: "abcd" }), 422);
    expect((await post({ slug: "abcde" })).status).toBe(200);
    expect((await post({ slug: "s".repeat(64) })).status).toBe(200);
    expectError(await post({ slug: "s".repeat(65) }), 422);
    expectError(await post({ template: "" }), 422);
    expectError(await post({ template: "t".repeat(65) }), 422);
    expectError(await post({ template: "t".repeat(64) }), 400);
    expect((await post({ template: "default" })).status).toBe(200);
  });

  maybe("refuses a duplicate project slug with 400", async () => {
    await createProject(api, world.admin.token, { slug: "dupe-slug" });
    expectError(await api.request("POST", "/api/v1/projects", { token: world.admin.token, body: { projectName: "Again", slug: "dupe-slug" } }), 400, "BadRequest");
  });

  maybe("lists built-in roles with stable ids", async () => {
    const a = await createProject(api, world.admin.token);
    const b = await createProject(api, world.admin.token);
    const ra = await api.request("GET", `/api/v2/workspace/${a.id}/roles`, { token: world.admin.token });
    const rb = await api.request("GET", `/api/v2/workspace/${b.id}/roles`, { token: world.admin.token });
    expect(ra.status).toBe(200);
    const slugs = ra.body.roles.map((r: { slug: string }) => r.slug);
    expect(slugs).toEqual(expect.arrayContaining(["admin", "member", "viewer", "no-access"]));
    const idOf = (res: typeof ra, slug: string) => res.body.roles.find((r: { slug: string }) => r.slug === slug).id;
    expect(idOf(ra, "admin")).toBe(idOf(rb, "admin"));
    for (const role of ra.body.roles) expect(Object.keys(role).sort()).toEqual(["createdAt", "description", "id", "name", "projectId", "slug", "updatedAt"]);
  });

  maybe("adds members, shows their details and replaces their roles", async () => {
    const project = await createProject(api, world.admin.userToken);
    const dev = await createUser(api, world.admin.token, world.admin.orgId, "dev@acme.test");
    const added = await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, {
      token: world.admin.userToken,
      body: { usernames: ["dev@acme.test"], roleSlugs: ["viewer"] },
    });
    expect(added.status).toBe(200);
    const membershipId = added.body.memberships[0].id;

    const details = await api.request("POST", `/api/v1/workspace/${project.id}/memberships/details`, { token: world.admin.userToken, body: { username: "dev@acme.test" } });
    expect(details.status).toBe(200);
    expect(details.body.membership).toMatchObject({ id: membershipId, userId: dev.userId, projectId: project.id, user: { email: "dev@acme.test", username: "dev@acme.test" } });
    expect(details.body.membership.roles.map((r: { role: string }) => r.role)).toEqual(["viewer"]);

    const start = api.clock.now().toISOString();
    const patched = await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${membershipId}`, {
      token: world.admin.userToken,
      body: { roles: [{ role: "member", isTemporary: false }, { role: "admin", isTemporary: true, temporaryMode: "relative", temporaryRange: "1h", temporaryAccessStartTime: start }] },
    });
    expect(patched.status).toBe(200);
    const temp = patched.body.roles.find((r: { isTemporary: boolean }) => r.isTemporary);
    expect(Date.parse(temp.temporaryAccessEndTime) - Date.parse(temp.temporaryAccessStartTime)).toBe(60 * 60 * 1000);
    expect(patched.body.roles[0]).toMatchObject({ role: "member", projectMembershipId: membershipId, customRoleId: null });

    const onlyTemporary = await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${membershipId}`, {
      token: world.admin.userToken,
      body: { roles: [{ role: "admin", isTemporary: true, temporaryMode: "relative", temporaryRange: "1h", temporaryAccessStartTime: start }] },
    });
    expectError(onlyTemporary, 422);
    expectError(await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${membershipId}`, { token: world.admin.userToken, body: { roles: [] } }), 422);
    expectError(
      await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${membershipId}`, { token: world.admin.userToken, body: { roles: [{ role: "nonexistent", isTemporary: false }] } }),
      400,
    );
    expectError(
      await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${membershipId}`, {
        token: world.admin.userToken,
        body: { roles: [{ role: "member", isTemporary: false }, { role: "admin", isTemporary: true, temporaryMode: "relative", temporaryRange: "soon" }] },
      }),
      400,
    );
    // a refused update changed nothing
    const after = await api.request("POST", `/api/v1/workspace/${project.id}/memberships/details`, { token: world.admin.userToken, body: { username: "dev@acme.test" } });
    expect(after.body.membership.roles.map((r: { role: string }) => r.role).sort()).toEqual(["admin", "member"]);
  });

  maybe("adds a machine identity to a project", async () => {
    const project = await createProject(api, world.admin.token);
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "reader");
    const res = await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, { token: world.admin.token, body: { role: "viewer" } });
    expect(res.status).toBe(200);
    expect(res.body.identityMembership).toMatchObject({ identityId: bot.identityId, projectId: project.id });
    expect(res.body.identityMembership.roles[0].role).toBe("viewer");
    expectError(await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, { token: world.admin.token, body: { role: "viewer" } }), 400);
    // the identity can now read the project's roles
    const roles = await api.request("GET", `/api/v2/workspace/${project.id}/roles`, { token: bot.token });
    expect(roles.status).toBe(200);
  });

  maybe("never shows one organization's data to another", async () => {
    const project = await createProject(api, world.admin.token);
    const outsider = await api.request("POST", "/api/v2/organizations", { token: world.admin.userToken, body: { name: "Rival" } });
    expect(outsider.status).toBe(200);
    const rivalOrg = outsider.body.organization.id;
    const rivalAdmin = await createUser(api, world.admin.userToken, rivalOrg, "boss@rival.test", "admin");
    expectError(await api.request("GET", `/api/v2/workspace/${project.id}/roles`, { token: rivalAdmin.token }), 404);
    expectError(await api.request("POST", `/api/v1/workspace/${project.id}/memberships/details`, { token: rivalAdmin.token, body: { username: world.admin.email } }), 404);
    expectError(await api.request("POST", `/api/v1/organizations/${world.admin.orgId}/users`, { token: rivalAdmin.token, body: { email: "spy@rival.test", password: "long password" } }), 404);
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "victim");
    expectError(await api.request("POST", `/api/v1/auth/universal-auth/identities/${bot.identityId}/client-secrets`, { token: rivalAdmin.token, body: {} }), 404);
    expectError(await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, { token: rivalAdmin.token, body: { role: "viewer" } }), 404);
    // a member of the same organization who is not in the project: 403, not 404
    const colleague = await createUser(api, world.admin.token, world.admin.orgId, "colleague@acme.test");
    expectError(await api.request("GET", `/api/v2/workspace/${project.id}/roles`, { token: colleague.token }), 403);
  });

  maybe("organizations are created by users, not machine identities", async () => {
    expectError(await api.request("POST", "/api/v2/organizations", { token: world.admin.token, body: { name: "Nope" } }), 403);
  });
});
