import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/** Projects from creation to deletion on Infisical's paths, old (`/workspace`) and current (`/projects`). */
describe.each(backends)("projects API on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let rivalToken: string;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    const rival = await api.request("POST", "/api/v2/organizations", { token: world.admin.userToken, body: { name: "Rival" } });
    rivalToken = (await createUser(api, world.admin.userToken, rival.body.organization.id, "boss@rival.test", "admin")).token;
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  maybe("creates a project on POST /api/v2/workspace as the SDK sends it", async () => {
    const res = await api.request("POST", "/api/v2/workspace", {
      token: world.admin.token,
      body: { projectName: "From SDK", type: "secret-manager", projectDescription: "made by a client", slug: "from-sdk" },
    });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({ name: "From SDK", slug: "from-sdk", description: "made by a client", isLegacyAdditionalPrivilegesEnabled: true });
    expect(res.body.project.environments.map((e: { slug: string }) => e.slug)).toEqual(["dev", "staging", "prod"]);
    expectError(await api.request("POST", "/api/v2/workspace", { token: world.admin.token, body: { projectName: "Twin", slug: "from-sdk" } }), 400);
    expectError(await api.request("POST", "/api/v2/workspace", { token: world.admin.token, body: { type: "secret-manager" } }), 422, "ValidationFailure");
    expectError(await api.request("POST", "/api/v2/workspace", { body: { projectName: "x" } }), 401);
  });

  maybe("lists the caller's projects, filtered by type, under workspaces and projects", async () => {
    const member = await createUser(api, world.admin.token, world.admin.orgId, "lister@acme.test");
    const mine = await createProject(api, member.token, { projectName: "Mine" });
    const keys = await createProject(api, member.token, { projectName: "My keys", type: "kms" });
    const notMine = await createProject(api, world.admin.token, { projectName: "Not mine" });

    const workspaces = await api.request("GET", "/api/v1/workspace", { token: member.token });
    expect(workspaces.status).toBe(200);
    expect(workspaces.body.workspaces.map((p: { id: string }) => p.id)).toEqual([mine.id, keys.id]);
    expect(workspaces.body.workspaces[0]).toMatchObject({ hasDeleteProtection: false, orgId: world.admin.orgId, type: "secret-manager" });
    expect(workspaces.body.workspaces[0].environments.map((e: { slug: string }) => e.slug)).toEqual(["dev", "staging", "prod"]);
    const kms = await api.request("GET", "/api/v1/workspace?type=kms", { token: member.token });
    expect(kms.body.workspaces.map((p: { id: string }) => p.id)).toEqual([keys.id]);
    const all = await api.request("GET", "/api/v1/projects?type=all", { token: member.token });
    expect(all.body.projects.map((p: { id: string }) => p.id)).toEqual([mine.id, keys.id]);
    const secretManager = await api.request("GET", "/api/v1/projects?type=secret-manager", { token: member.token });
    expect(secretManager.body.projects.map((p: { id: string }) => p.id)).toEqual([mine.id]);

    // An organization admin sees every project of the organization; another organization sees none.
    const admin = await api.request("GET", "/api/v1/projects", { token: world.admin.token });
    expect(admin.body.projects.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([mine.id, keys.id, notMine.id]));
    expect((await api.request("GET", "/api/v1/workspace", { token: rivalToken })).body.workspaces).toEqual([]);
    expectError(await api.request("GET", "/api/v1/projects?type=vault", { token: member.token }), 422);
    expectError(await api.request("GET", `/api/v1/projects?organizationId=${world.admin.orgId}`, { token: rivalToken }), 404);
    expectError(await api.request("GET", "/api/v1/workspace"), 401);
  });

  maybe("gets a project for its members only", async () => {
    const project = await createProject(api, world.admin.token, { projectName: "Readable" });
    const viewer = await createUser(api, world.admin.token, world.admin.orgId, "reader@acme.test");
    const outsider = await createUser(api, world.admin.token, world.admin.orgId, "outsider@acme.test");
    await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: world.admin.token, body: { usernames: [viewer.email], roleSlugs: ["viewer"] } });

    const got = await api.request("GET", `/api/v1/projects/${project.id}`, { token: viewer.token });
    expect(got.status).toBe(200);
    expect(got.body.project).toMatchObject({ id: project.id, _id: project.id, name: "Readable" });
    const old = await api.request("GET", `/api/v1/workspace/${project.id}`, { token: viewer.token });
    expect(old.body.workspace).toEqual(got.body.project);
    expectError(await api.request("GET", `/api/v1/projects/${project.id}`, { token: outsider.token }), 403, "PermissionDenied");
    expectError(await api.request("GET", `/api/v1/projects/${project.id}`, { token: rivalToken }), 404, "NotFound");
    expectError(await api.request("GET", "/api/v1/projects/00000000-0000-4000-8000-000000000000", { token: world.admin.token }), 404);
    expectError(await api.request("GET", `/api/v1/workspace/${project.id}`), 401);
  });

  maybe("updates name, description, slug and settings with edit on settings", async () => {
    const project = await createProject(api, world.admin.token, { projectName: "Before" });
    const viewer = await createUser(api, world.admin.token, world.admin.orgId, "settings-viewer@acme.test");
    await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: world.admin.token, body: { usernames: [viewer.email], roleSlugs: ["viewer"] } });

    const res = await api.request("PATCH", `/api/v1/projects/${project.id}`, {
      token: world.admin.token,
      body: { name: "After", description: "renamed", autoCapitalization: true, hasDeleteProtection: true, slug: "after-rename", pitVersionLimit: 20 },
    });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({ name: "After", description: "renamed", autoCapitalization: true, hasDeleteProtection: true, slug: "after-rename", pitVersionLimit: 20 });
    expect((await api.request("GET", `/api/v1/projects/${project.id}`, { token: world.admin.token })).body.project).toEqual(res.body.project);
    const old = await api.request("PATCH", `/api/v1/workspace/${project.id}`, { token: world.admin.token, body: { secretSharing: false } });
    expect(old.body.workspace).toMatchObject({ name: "After", secretSharing: false });

    const other = await createProject(api, world.admin.token, { projectName: "Other", slug: "other-slug" });
    expectError(await api.request("PATCH", `/api/v1/projects/${project.id}`, { token: world.admin.token, body: { slug: other.slug } }), 400);
    expectError(await api.request("PATCH", `/api/v1/projects/${project.id}`, { token: world.admin.token, body: { name: "x", colour: "red" } }), 422);
    expectError(await api.request("PATCH", `/api/v1/projects/${project.id}`, { token: world.admin.token, body: { name: "" } }), 422);
    expectError(await api.request("PATCH", `/api/v1/projects/${project.id}`, { token: viewer.token, body: { name: "Viewer's" } }), 403);
    expectError(await api.request("PATCH", `/api/v1/projects/${project.id}`, { token: rivalToken, body: { name: "Rival's" } }), 404);
    expectError(await api.request("PATCH", `/api/v1/projects/${project.id}`, { body: { name: "Anyone's" } }), 401);
    expect((await api.request("GET", `/api/v1/projects/${project.id}`, { token: world.admin.token })).body.project.name).toBe("After");
  });

  maybe("deletes a project with its secrets, refusing while delete protection is on", async () => {
    const project = await createProject(api, world.admin.token, { projectName: "Doomed", hasDeleteProtection: true });
    await api.request("POST", "/api/v4/secrets/DOOMED", { token: world.admin.token, body: { projectId: project.id, environment: "dev", secretValue: "v" } });
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "doomed-bot");
    await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, { token: world.admin.token, body: { role: "member" } });

    expectError(await api.request("DELETE", `/api/v1/projects/${project.id}`, { token: world.admin.token }), 400, "BadRequest");
    expectError(await api.request("DELETE", `/api/v1/projects/${project.id}`, { token: world.admin.token, body: { force: true } }), 422);
    expectError(await api.request("DELETE", `/api/v1/projects/${project.id}`, { token: bot.token }), 403);
    expectError(await api.request("DELETE", `/api/v1/projects/${project.id}`, { token: rivalToken }), 404);
    expectError(await api.request("DELETE", `/api/v1/projects/${project.id}`), 401);
    expect((await api.request("GET", `/api/v4/secrets/DOOMED?projectId=${project.id}&environment=dev`, { token: bot.token })).status).toBe(200);

    await api.request("PATCH", `/api/v1/projects/${project.id}`, { token: world.admin.token, body: { hasDeleteProtection: false } });
    const deleted = await api.request("DELETE", `/api/v1/workspace/${project.id}`, { token: world.admin.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body.workspace).toMatchObject({ id: project.id, name: "Doomed" });
    // Its member's access ends at once.
    expectError(await api.request("GET", `/api/v4/secrets/DOOMED?projectId=${project.id}&environment=dev`, { token: bot.token }), 404);
    expectError(await api.request("GET", `/api/v1/projects/${project.id}`, { token: world.admin.token }), 404);
    expectError(await api.request("DELETE", `/api/v1/projects/${project.id}`, { token: world.admin.token }), 404);
    expect((await api.request("GET", "/api/v1/workspace", { token: bot.token })).body.workspaces).toEqual([]);
  });
});
