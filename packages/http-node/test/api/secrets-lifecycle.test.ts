import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * The secret manager's lifecycle routes beyond create/list/delete, over HTTP on every backend:
 * import updates, folder reads and renames, secret versions and rollback. Each route: its success
 * shape, 401, 403, 404, 422, and a caller of another organization.
 */
describe.each(backends)("secret manager lifecycle API on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let token: string;
  let project: { id: string; slug: string };
  let viewer: string;
  let rival: string;
  let available = true;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    token = world.admin.token;
    project = await createProject(api, token, { projectName: "Lifecycle" });
    const reader = await createUser(api, token, world.admin.orgId, "reader@acme.test");
    await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [reader.email], roleSlugs: ["viewer"] });
    viewer = reader.token;
    const other = await api.request("POST", "/api/v2/organizations", { token: world.admin.userToken, body: { name: "Rival" } });
    rival = (await createUser(api, world.admin.userToken, other.body.organization.id, "boss@rival.test", "admin")).token;
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));
  const call = (method: string, path: string, body?: unknown, as = token) => api.request(method, path, { token: as, body });
  const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;
  async function ok(method: string, path: string, body?: unknown, as = token) {
    const res = await call(method, path, body, as);
    if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  maybe("PATCH /api/v1/secret-imports/{id} moves and re-points an import", async () => {
    const at = { projectId: project.id, environment: "dev", path: "/" };
    for (const name of ["one", "two", "three"]) await ok("POST", "/api/v1/folders", { projectId: project.id, environment: "prod", name });
    const ids: string[] = [];
    for (const name of ["one", "two", "three"]) {
      ids.push((await ok("POST", "/api/v1/secret-imports", { ...at, import: { environment: "prod", path: `/${name}` } })).secretImport.id);
    }
    const moved = await ok("PATCH", `/api/v1/secret-imports/${ids[2]}`, { ...at, import: { position: 1 } });
    expect(moved).toMatchObject({ message: expect.any(String), secretImport: { id: ids[2], importPath: "/three", position: 1, importEnv: { slug: "prod" } } });
    const listed = await ok("GET", `/api/v1/secret-imports${q({ workspaceId: project.id, environment: "dev", path: "/" })}`);
    expect(listed.secretImports.map((i: any) => [i.importPath, i.position])).toEqual([["/three", 1], ["/one", 2], ["/two", 3]]);
    await ok("DELETE", `/api/v1/secret-imports/${ids[0]}${q({ projectId: project.id })}`);
    const after = await ok("GET", `/api/v1/secret-imports${q({ workspaceId: project.id, environment: "dev", path: "/" })}`);
    expect(after.secretImports.map((i: any) => [i.importPath, i.position])).toEqual([["/three", 1], ["/two", 2]]);

    const path = `/api/v1/secret-imports/${ids[1]}`;
    expectError(await call("PATCH", path, { ...at, import: { position: 1 } }, "srt_not_a_token"), 401, "UnauthorizedError");
    expectError(await call("PATCH", path, { ...at, import: { position: 1 } }, viewer), 403, "PermissionDenied");
    expectError(await call("PATCH", "/api/v1/secret-imports/00000000-0000-4000-8000-000000000000", { ...at, import: { position: 1 } }), 404, "NotFound");
    expectError(await call("PATCH", path, { ...at, import: { position: "first" } }), 422, "ValidationFailure");
    expectError(await call("PATCH", path, { ...at, import: { position: 1 }, color: "red" }), 422, "ValidationFailure");
    expectError(await call("PATCH", path, { ...at, import: { environment: "prod", path: "/three" } }), 400, "BadRequest");
    expect([403, 404]).toContain((await call("PATCH", path, { ...at, import: { position: 1 } }, rival)).status);
    const unchanged = await ok("GET", `/api/v1/secret-imports${q({ workspaceId: project.id, environment: "dev", path: "/" })}`);
    expect(unchanged.secretImports.map((i: any) => [i.importPath, i.position])).toEqual([["/three", 1], ["/two", 2]]);
  });

  maybe("GET /api/v1/folders/{id} and PATCH /api/v1/folders/{folderId}", async () => {
    const created = await ok("POST", "/api/v1/folders", { workspaceId: project.id, environment: "staging", name: "api", description: "backend" });
    const id = created.folder.id;
    await ok("POST", "/api/v4/secrets/API_KEY", { projectId: project.id, environment: "staging", secretPath: "/api", secretValue: "k" });
    const got = await ok("GET", `/api/v1/folders/${id}`);
    expect(got.folder).toMatchObject({ id, name: "api", path: "/api", description: "backend", projectId: project.id, environment: { envSlug: "staging" } });
    expectError(await call("GET", `/api/v1/folders/${id}`, undefined, "srt_not_a_token"), 401, "UnauthorizedError");
    expectError(await call("GET", "/api/v1/folders/00000000-0000-4000-8000-000000000000"), 404, "NotFound");
    expectError(await call("GET", `/api/v1/folders/${id}`, undefined, rival), 404, "NotFound");

    const body = { projectId: project.id, environment: "staging", name: "backend" };
    expectError(await call("PATCH", `/api/v1/folders/${id}`, body, "srt_not_a_token"), 401);
    expectError(await call("PATCH", `/api/v1/folders/${id}`, body, viewer), 403, "PermissionDenied");
    expectError(await call("PATCH", "/api/v1/folders/00000000-0000-4000-8000-000000000000", body), 404, "NotFound");
    expectError(await call("PATCH", `/api/v1/folders/${id}`, { ...body, name: "a/b" }), 422, "ValidationFailure");
    expectError(await call("PATCH", `/api/v1/folders/${id}`, { ...body, owner: "me" }), 422, "ValidationFailure");
    expect([403, 404]).toContain((await call("PATCH", `/api/v1/folders/${id}`, body, rival)).status);
    expect((await ok("GET", `/api/v1/folders/${id}`)).folder.path).toBe("/api");

    const renamed = await ok("PATCH", `/api/v1/folders/${id}`, { ...body, path: "/" });
    expect(renamed.folder).toMatchObject({ id, name: "backend", path: "/backend", description: "backend" });
    const secret = await ok("GET", `/api/v4/secrets/API_KEY${q({ projectId: project.id, environment: "staging", secretPath: "/backend" })}`);
    expect(secret.secret).toMatchObject({ secretValue: "k", secretPath: "/backend" });
  });

  maybe("GET /api/v1/secret/{secretId}/secret-versions and POST …/rollback", async () => {
    const where = { projectId: project.id, environment: "dev", secretPath: "/" };
    const created = await ok("POST", "/api/v4/secrets/ROLLED", { ...where, secretValue: "one", secretComment: "c1" });
    await ok("PATCH", "/api/v4/secrets/ROLLED", { ...where, secretValue: "two", secretComment: "c2" });
    const id = created.secret.id;
    const versions = await ok("GET", `/api/v1/secret/${id}/secret-versions${q({ offset: "0", limit: "10" })}`);
    expect(versions.secretVersions.map((v: any) => [v.version, v.secretValue])).toEqual([[2, "two"], [1, "one"]]);
    const rolled = await ok("POST", `/api/v1/secret/${id}/secret-versions/rollback`, { version: 1 });
    expect(rolled.secret).toMatchObject({ id, version: 3, secretKey: "ROLLED", secretValue: "one", secretComment: "c1" });
    expect((await ok("GET", `/api/v4/secrets/ROLLED${q(where)}`)).secret).toMatchObject({ secretValue: "one", version: 3 });

    const list = `/api/v1/secret/${id}/secret-versions`;
    const rollback = `${list}/rollback`;
    expectError(await call("GET", list, undefined, "srt_not_a_token"), 401, "UnauthorizedError");
    expectError(await call("POST", rollback, { version: 1 }, "srt_not_a_token"), 401);
    expectError(await call("POST", rollback, { version: 2 }, viewer), 403, "PermissionDenied");
    expect((await ok("GET", list, undefined, viewer)).secretVersions).toHaveLength(3);
    expectError(await call("GET", "/api/v1/secret/00000000-0000-4000-8000-000000000000/secret-versions"), 404, "NotFound");
    expectError(await call("POST", rollback, { version: 42 }), 404, "NotFound");
    expectError(await call("POST", rollback, { version: "1" }), 422, "ValidationFailure");
    expectError(await call("POST", rollback, { version: 1, force: true }), 422, "ValidationFailure");
    expectError(await call("GET", `${list}?limit=1000`), 422, "ValidationFailure");
    expect([403, 404]).toContain((await call("GET", list, undefined, rival)).status);
    expect([403, 404]).toContain((await call("POST", rollback, { version: 2 }, rival)).status);
    expect((await ok("GET", `/api/v4/secrets/ROLLED${q(where)}`)).secret.version).toBe(3);
  });

  maybe("lists a personal override beside its shared secret, or in its place with includePersonalOverrides", async () => {
    const dev = await createUser(api, token, world.admin.orgId, "dev@acme.test");
    await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [dev.email], roleSlugs: ["member"] });
    const where = { workspaceId: project.id, environment: "prod", secretPath: "/" };
    await ok("POST", "/api/v3/secrets/raw/LOG_LEVEL", { ...where, secretValue: "warn" });
    await ok("POST", "/api/v3/secrets/raw/LOG_LEVEL", { ...where, secretValue: "debug", type: "personal" }, dev.token);
    const mine = (res: any) => res.secrets.filter((s: any) => s.secretKey === "LOG_LEVEL").map((s: any) => [s.type, s.secretValue]);
    expect(mine(await ok("GET", `/api/v3/secrets/raw${q(where)}`, undefined, dev.token))).toEqual([["shared", "warn"], ["personal", "debug"]]);
    expect(mine(await ok("GET", `/api/v3/secrets/raw${q({ ...where, include_personal_overrides: "true" })}`, undefined, dev.token))).toEqual([["personal", "debug"]]);
    expect(mine(await ok("GET", `/api/v4/secrets${q({ projectId: project.id, environment: "prod", includePersonalOverrides: "true" })}`, undefined, dev.token))).toEqual([
      ["personal", "debug"],
    ]);
    expect(mine(await ok("GET", `/api/v4/secrets${q({ projectId: project.id, environment: "prod" })}`))).toEqual([["shared", "warn"]]);
    expectError(await call("GET", `/api/v4/secrets${q({ projectId: project.id, environment: "prod", includePersonalOverrides: "maybe" })}`), 422, "ValidationFailure");
  });
});
