import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/** Environments listed and read, with positions from 1 that stay contiguous through creations, moves and deletions. */
describe.each(backends)("environments API on %s", (backend) => {
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
  const order = async (projectId: string) =>
    (await api.request("GET", `/api/v1/workspace/${projectId}/environments`, { token: world.admin.token })).body.environments.map(
      (e: { slug: string; position: number }) => `${e.position}:${e.slug}`,
    );

  maybe("lists and gets environments with positions from 1", async () => {
    const project = await createProject(api, world.admin.token, { projectName: "Envs" });
    const listed = await api.request("GET", `/api/v1/projects/${project.id}/environments`, { token: world.admin.token });
    expect(listed.status).toBe(200);
    expect(listed.body.environments).toMatchObject([
      { slug: "dev", name: "Development", position: 1, projectId: project.id },
      { slug: "staging", position: 2 },
      { slug: "prod", position: 3 },
    ]);
    const dev = listed.body.environments[0];
    const got = await api.request("GET", `/api/v1/workspace/${project.id}/environments/${dev.id}`, { token: world.admin.token });
    expect(got.body.environment).toEqual(dev);
    expect((await api.request("GET", `/api/v1/projects/${project.id}/environments/${dev.id}`, { token: world.admin.token })).body.environment).toEqual(dev);

    const outsider = await createUser(api, world.admin.token, world.admin.orgId, "env-outsider@acme.test");
    expectError(await api.request("GET", `/api/v1/workspace/${project.id}/environments`, { token: outsider.token }), 403);
    expectError(await api.request("GET", `/api/v1/workspace/${project.id}/environments/${dev.id}`, { token: rivalToken }), 404);
    expectError(await api.request("GET", `/api/v1/workspace/${project.id}/environments/00000000-0000-4000-8000-000000000000`, { token: world.admin.token }), 404);
    expectError(await api.request("GET", `/api/v1/workspace/${project.id}/environments`), 401);
    // Another project's environment is not this project's.
    const other = await createProject(api, world.admin.token, { projectName: "Other envs" });
    expectError(await api.request("GET", `/api/v1/workspace/${other.id}/environments/${dev.id}`, { token: world.admin.token }), 404);
  });

  maybe("shows only the environments a custom role may read", async () => {
    const project = await createProject(api, world.admin.token, { projectName: "Scoped envs" });
    await api.request("POST", `/api/v1/projects/${project.id}/roles`, {
      token: world.admin.token,
      body: { slug: "dev-only", name: "Dev only", permissions: [{ subject: "environments", action: ["read"], conditions: { environment: "dev" } }] },
    });
    const dev = await createUser(api, world.admin.token, world.admin.orgId, "dev-only@acme.test");
    await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: world.admin.token, body: { usernames: [dev.email], roleSlugs: ["dev-only"] } });
    const listed = await api.request("GET", `/api/v1/workspace/${project.id}/environments`, { token: dev.token });
    expect(listed.body.environments.map((e: { slug: string }) => e.slug)).toEqual(["dev"]);
    const prod = project.environments.find((e) => e.slug === "prod")!;
    expectError(await api.request("GET", `/api/v1/workspace/${project.id}/environments/${prod.id}`, { token: dev.token }), 403);
  });

  maybe("keeps positions contiguous through creations, moves and deletions", async () => {
    const project = await createProject(api, world.admin.token, { projectName: "Ordering" });
    const base = `/api/v1/workspace/${project.id}/environments`;
    const qa = await api.request("POST", base, { token: world.admin.token, body: { name: "QA", slug: "qa" } });
    expect(qa.body.environment.position).toBe(4);
    const first = await api.request("POST", base, { token: world.admin.token, body: { name: "Local", slug: "local", position: 1 } });
    expect(first.body.environment.position).toBe(1);
    expect(await order(project.id)).toEqual(["1:local", "2:dev", "3:staging", "4:prod", "5:qa"]);
    expect(first.body.workspace.environments.map((e: { slug: string }) => e.slug)).toEqual(["local", "dev", "staging", "prod", "qa"]);

    const moved = await api.request("PATCH", `${base}/${qa.body.environment.id}`, { token: world.admin.token, body: { position: 2 } });
    expect(moved.body.environment.position).toBe(2);
    expect(await order(project.id)).toEqual(["1:local", "2:qa", "3:dev", "4:staging", "5:prod"]);
    await api.request("PATCH", `${base}/${first.body.environment.id}`, { token: world.admin.token, body: { position: 99 } });
    expect(await order(project.id)).toEqual(["1:qa", "2:dev", "3:staging", "4:prod", "5:local"]);

    const dev = project.environments.find((e) => e.slug === "dev")!;
    await api.request("DELETE", `${base}/${dev.id}`, { token: world.admin.token });
    expect(await order(project.id)).toEqual(["1:qa", "2:staging", "3:prod", "4:local"]);
    expectError(await api.request("GET", `${base}/${dev.id}`, { token: world.admin.token }), 404);
    expectError(await api.request("POST", base, { token: world.admin.token, body: { name: "Zero", slug: "zero", position: 0 } }), 422);
    expectError(await api.request("PATCH", `${base}/${qa.body.environment.id}`, { token: world.admin.token, body: { position: -1 } }), 422);
  });
});
