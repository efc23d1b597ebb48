import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

const HOUR = 60 * 60 * 1000;
const V1_KEYS = [
  "createdAt", "id", "isTemporary", "permissions", "projectMembershipId", "slug", "temporaryAccessEndTime",
  "temporaryAccessStartTime", "temporaryMode", "temporaryRange", "updatedAt",
];
const V2_KEYS = V1_KEYS.filter((k) => k !== "projectMembershipId");
const V2_LIST_KEYS = V2_KEYS.filter((k) => k !== "permissions");

describe.each(backends)("custom roles and identity privileges on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let project: Awaited<ReturnType<typeof createProject>>;
  let bot: Awaited<ReturnType<typeof createIdentity>>;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    project = await createProject(api, world.admin.token, { slug: "privileged-app" });
    bot = await createIdentity(api, world.admin.token, world.admin.orgId, "bot");
    const added = await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, {
      token: world.admin.token,
      body: { role: "no-access" },
    });
    expect(added.status).toBe(200);
  });
  afterAll(async () => {
    if (available) await api.close();
  });
  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));
  const v1Address = () => ({ identityId: bot.identityId, projectSlug: project.slug });

  maybe("a temporary v1 privilege grants access, then expires and stops granting it", async () => {
    expectError(await api.request("GET", `/api/v2/workspace/${project.id}/roles`, { token: bot.token }), 403, "PermissionDenied");
    const created = await api.request("POST", "/api/v1/additional-privilege/identity/temporary", {
      token: world.admin.token,
      body: {
        ...v1Address(),
        slug: "read-roles",
        permissions: [{ action: "read", subject: "role" }],
        temporaryMode: "relative",
        temporaryRange: "1h",
        temporaryAccessStartTime: api.clock.now().toISOString(),
      },
    });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body.privilege).sort()).toEqual(V1_KEYS);
    expect(created.body.privilege).toMatchObject({ slug: "read-roles", isTemporary: true, temporaryMode: "relative", temporaryRange: "1h" });
    const p = created.body.privilege;
    expect(Date.parse(p.temporaryAccessEndTime) - Date.parse(p.temporaryAccessStartTime)).toBe(HOUR);

    expect((await api.request("GET", `/api/v2/workspace/${project.id}/roles`, { token: bot.token })).status).toBe(200);
    api.clock.advance(HOUR + 1000);
    expectError(await api.request("GET", `/api/v2/workspace/${project.id}/roles`, { token: bot.token }), 403);
  });

  maybe("v1: create permanent, list, get, update, delete with exact shapes", async () => {
    const create = await api.request("POST", "/api/v1/additional-privilege/identity/permanent", {
      token: world.admin.token,
      body: {
        ...v1Address(),
        slug: "dev-secrets",
        privilegePermission: { actions: ["read", "create"], subject: "secrets", conditions: { environment: "dev", secretPath: { $glob: "/apps/**" } } },
      },
    });
    expect(create.status).toBe(200);
    expect(create.body.privilege.permissions).toEqual([
      { action: "read", subject: "secrets", conditions: { environment: "dev", secretPath: { $glob: "/apps/**" } }, inverted: false },
      { action: "create", subject: "secrets", conditions: { environment: "dev", secretPath: { $glob: "/apps/**" } }, inverted: false },
    ]);
    expect(create.body.privilege.isTemporary).toBe(false);

    const q = `identityId=${bot.identityId}&projectSlug=${project.slug}`;
    const list = await api.request("GET", `/api/v1/additional-privilege/identity?${q}`, { token: world.admin.token });
    expect(list.status).toBe(200);
    expect(list.body.privileges.map((x: { slug: string }) => x.slug)).toContain("dev-secrets");
    for (const item of list.body.privileges) expect(Object.keys(item).sort()).toEqual(V1_KEYS);

    const get = await api.request("GET", `/api/v1/additional-privilege/identity/dev-secrets?${q}`, { token: world.admin.token });
    expect(get.body.privilege.id).toBe(create.body.privilege.id);

    const patched = await api.request("PATCH", "/api/v1/additional-privilege/identity", {
      token: world.admin.token,
      body: { ...v1Address(), privilegeSlug: "dev-secrets", privilegeDetails: { slug: "dev-secrets-2", permissions: [{ action: "read", subject: "secrets", conditions: { environment: "dev" } }] } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.privilege).toMatchObject({ slug: "dev-secrets-2", permissions: [{ action: "read", subject: "secrets", conditions: { environment: "dev" }, inverted: false }] });

    const deleted = await api.request("DELETE", "/api/v1/additional-privilege/identity", { token: world.admin.token, body: { ...v1Address(), privilegeSlug: "dev-secrets-2" } });
    expect(deleted.status).toBe(200);
    expect(deleted.body.privilege.slug).toBe("dev-secrets-2");
    expectError(await api.request("GET", `/api/v1/additional-privilege/identity/dev-secrets-2?${q}`, { token: world.admin.token }), 404);
  });

  maybe("v1 rejects duplicates, unknown identities, missing permissions and bad ranges", async () => {
    const body = { ...v1Address(), slug: "dupe", permissions: [{ action: "read", subject: "role" }] };
    expect((await api.request("POST", "/api/v1/additional-privilege/identity/permanent", { token: world.admin.token, body })).status).toBe(200);
    expectError(await api.request("POST", "/api/v1/additional-privilege/identity/permanent", { token: world.admin.token, body }), 400);
    expectError(
      await api.request("POST", "/api/v1/additional-privilege/identity/permanent", { token: world.admin.token, body: { ...body, slug: "x1", identityId: "00000000-0000-4000-8000-000000000000" } }),
      404,
    );
    expectError(await api.request("POST", "/api/v1/additional-privilege/identity/permanent", { token: world.admin.token, body: { ...v1Address(), slug: "none" } }), 400);
    expectError(
      await api.request("POST", "/api/v1/additional-privilege/identity/temporary", {
        token: world.admin.token,
        body: { ...body, slug: "badrange", temporaryMode: "relative", temporaryRange: "forever", temporaryAccessStartTime: new Date().toISOString() },
      }),
      400,
    );
    expectError(
      await api.request("POST", "/api/v1/additional-privilege/identity/temporary", { token: world.admin.token, body: { ...body, slug: "missing-fields" } }),
      422,
    );
    // slug bounds: 60 characters allowed, 61 refused
    expect((await api.request("POST", "/api/v1/additional-privilege/identity/permanent", { token: world.admin.token, body: { ...body, slug: "s".repeat(60) } })).status).toBe(200);
    expectError(await api.request("POST", "/api/v1/additional-privilege/identity/permanent", { token: world.admin.token, body: { ...body, slug: "s".repeat(61) } }), 422);
  });

  maybe("v2: create, list without permissions, get by id and slug, update, delete", async () => {
    const create = await api.request("POST", "/api/v2/identity-project-additional-privilege", {
      token: world.admin.token,
      body: { identityId: bot.identityId, projectId: project.id, slug: "v2-priv", permissions: [{ subject: "secrets", action: ["read"], conditions: { environment: "staging" } }] },
    });
    expect(create.status).toBe(200);
    expect(Object.keys(create.body.privilege).sort()).toEqual(V2_KEYS);
    const id = create.body.privilege.id;

    const list = await api.request("GET", `/api/v2/identity-project-additional-privilege?identityId=${bot.identityId}&projectId=${project.id}`, { token: world.admin.token });
    expect(list.status).toBe(200);
    for (const item of list.body.privileges) expect(Object.keys(item).sort()).toEqual(V2_LIST_KEYS);

    const byId = await api.request("GET", `/api/v2/identity-project-additional-privilege/${id}`, { token: world.admin.token });
    expect(byId.body.privilege.slug).toBe("v2-priv");
    const bySlug = await api.request("GET", `/api/v2/identity-project-additional-privilege/slug/v2-priv?identityId=${bot.identityId}&projectSlug=${project.slug}`, { token: world.admin.token });
    expect(bySlug.body.privilege.id).toBe(id);

    const start = api.clock.now().toISOString();
    const patched = await api.request("PATCH", `/api/v2/identity-project-additional-privilege/${id}`, {
      token: world.admin.token,
      body: { slug: "v2-priv-b", type: { isTemporary: true, temporaryMode: "relative", temporaryRange: "15m", temporaryAccessStartTime: start } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.privilege).toMatchObject({ slug: "v2-priv-b", isTemporary: true, temporaryRange: "15m" });
    expect(Date.parse(patched.body.privilege.temporaryAccessEndTime) - Date.parse(start)).toBe(15 * 60 * 1000);
    const permanent = await api.request("PATCH", `/api/v2/identity-project-additional-privilege/${id}`, { token: world.admin.token, body: { type: { isTemporary: false } } });
    expect(permanent.body.privilege).toMatchObject({ isTemporary: false, temporaryAccessEndTime: null });

    const deleted = await api.request("DELETE", `/api/v2/identity-project-additional-privilege/${id}`, { token: world.admin.token });
    expect(deleted.status).toBe(200);
    expect(Object.keys(deleted.body.privilege).sort()).toEqual(V2_KEYS);
    expectError(await api.request("GET", `/api/v2/identity-project-additional-privilege/${id}`, { token: world.admin.token }), 404);
    expectError(await api.request("PATCH", `/api/v2/identity-project-additional-privilege/${id}`, { token: world.admin.token, body: { slug: "x" } }), 404);
  });

  maybe("an identity cannot grant itself privileges it lacks", async () => {
    // the bot may only read roles: it holds no grant-privileges on identities
    const attempt = await api.request("POST", "/api/v2/identity-project-additional-privilege", {
      token: bot.token,
      body: { identityId: bot.identityId, projectId: project.id, permissions: [{ subject: "secrets", action: ["read"] }] },
    });
    expectError(attempt, 403, "PermissionDenied");
    expect(attempt.body.message).toMatch(/grant-privileges/);
  });

  maybe("granting is bounded by what the granter holds: /apps/* does not cover /apps/**", async () => {
    const role = await api.request("POST", `/api/v1/projects/${project.id}/roles`, {
      token: world.admin.token,
      body: {
        slug: "app-lead",
        name: "App lead",
        permissions: [
          { subject: "identity", action: ["read", "grant-privileges"] },
          { subject: "secrets", action: ["read"], conditions: { environment: "dev", secretPath: { $glob: "/apps/*" } } },
        ],
      },
    });
    expect(role.status).toBe(200);
    const lead = await createIdentity(api, world.admin.token, world.admin.orgId, "lead");
    await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${lead.identityId}`, { token: world.admin.token, body: { role: "app-lead" } });
    // A fresh target: the lead may only change the privileges of an identity holding nothing it lacks.
    const fresh = await createIdentity(api, world.admin.token, world.admin.orgId, "fresh");
    await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${fresh.identityId}`, { token: world.admin.token, body: { role: "no-access" } });

    const within = await api.request("POST", "/api/v2/identity-project-additional-privilege", {
      token: lead.token,
      body: { identityId: fresh.identityId, projectId: project.id, permissions: [{ subject: "secrets", action: ["read"], conditions: { environment: "dev", secretPath: { $glob: "/apps/*" } } }] },
    });
    expect(within.status).toBe(200);
    const beyond = await api.request("POST", "/api/v2/identity-project-additional-privilege", {
      token: lead.token,
      body: { identityId: fresh.identityId, projectId: project.id, permissions: [{ subject: "secrets", action: ["read"], conditions: { environment: "dev", secretPath: { $glob: "/apps/**" } } }] },
    });
    const body = expectError(beyond, 403, "PermissionBoundaryError");
    expect(body.details.missingPermissions.length).toBeGreaterThan(0);
  });

  maybe("a member cannot escalate their own membership", async () => {
    const dev = await createUser(api, world.admin.token, world.admin.orgId, "escalator@acme.test");
    const added = await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: world.admin.token, body: { usernames: [dev.email], roleSlugs: ["member"] } });
    const membershipId = added.body.memberships[0].id;
    const attempt = await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${membershipId}`, {
      token: dev.token,
      body: { roles: [{ role: "admin", isTemporary: false }] },
    });
    expectError(attempt, 403, "PermissionDenied");
  });

  maybe("custom roles: CRUD, listed beside built-ins, assignable, not deletable while in use", async () => {
    const created = await api.request("POST", `/api/v1/projects/${project.id}/roles`, {
      token: world.admin.token,
      body: { slug: "auditor", name: "Auditor", description: "reads roles", permissions: [{ subject: "role", action: "read" }] },
    });
    expect(created.status).toBe(200);
    const roleId = created.body.role.id;
    expectError(await api.request("POST", `/api/v1/projects/${project.id}/roles`, { token: world.admin.token, body: { slug: "auditor", name: "Again", permissions: [] } }), 400);
    expectError(await api.request("POST", `/api/v1/projects/${project.id}/roles`, { token: world.admin.token, body: { slug: "admin", name: "Fake admin", permissions: [] } }), 400);
    expectError(
      await api.request("POST", `/api/v1/projects/${project.id}/roles`, { token: world.admin.token, body: { slug: "bad", name: "Bad", permissions: [{ subject: "secrets", action: "read", conditions: { environment: { $regex: "x" } } }] } }),
      422,
    );

    const listed = await api.request("GET", `/api/v2/workspace/${project.id}/roles`, { token: world.admin.token });
    expect(listed.body.roles.map((r: { slug: string }) => r.slug)).toEqual(expect.arrayContaining(["admin", "member", "viewer", "no-access", "auditor"]));

    const patched = await api.request("PATCH", `/api/v1/projects/${project.id}/roles/${roleId}`, { token: world.admin.token, body: { name: "Auditor 2" } });
    expect(patched.body.role).toMatchObject({ name: "Auditor 2", slug: "auditor" });

    const auditor = await createUser(api, world.admin.token, world.admin.orgId, "auditor@acme.test");
    const add = await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: world.admin.token, body: { usernames: [auditor.email], roleSlugs: ["auditor"] } });
    expect(add.status).toBe(200);
    expect(add.body.memberships[0].roles[0]).toMatchObject({ role: "custom", customRoleId: roleId });
    expect((await api.request("GET", `/api/v2/workspace/${project.id}/roles`, { token: auditor.token })).status).toBe(200);
    const details = await api.request("POST", `/api/v1/workspace/${project.id}/memberships/details`, { token: world.admin.token, body: { username: auditor.email } });
    expect(details.body.membership.roles[0]).toMatchObject({ role: "custom", customRoleSlug: "auditor", customRoleName: "Auditor 2" });

    expectError(await api.request("DELETE", `/api/v1/projects/${project.id}/roles/${roleId}`, { token: world.admin.token }), 400);
    await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${add.body.memberships[0].id}`, { token: world.admin.token, body: { roles: [{ role: "viewer", isTemporary: false }] } });
    expect((await api.request("DELETE", `/api/v1/projects/${project.id}/roles/${roleId}`, { token: world.admin.token })).status).toBe(200);
    expectError(await api.request("GET", `/api/v1/projects/${project.id}/roles/${roleId}`, { token: world.admin.token }), 404);
  });
});
