import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createProject, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Imports of imports over HTTP on every backend (issue 17, "Folders… imports"): dev ← staging ←
 * prod resolves in lists and in single reads with `include_imports`, the nearest value of a name
 * winning, and a cycle stops instead of looping. The core suite covers the rules on the memory
 * store; this runs the same chain through the routes Infisical's clients call.
 */
describe.each(backends)("imports of imports on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let projectId: string;
  let available = true;

  const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;
  async function ok(method: string, path: string, body?: unknown) {
    const res = await api.request(method, path, { token: world.admin.token, body });
    if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
  const where = (environment: string) => ({ workspaceId: projectId, environment, secretPath: "/" });
  const list = (environment: string) => ok("GET", `/api/v3/secrets/raw${q({ ...where(environment), include_imports: "true" })}`);
  const importInto = (environment: string, from: string) =>
    ok("POST", "/api/v1/secret-imports", { projectId, environment, path: "/", import: { environment: from, path: "/" } });

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    projectId = (await createProject(api, world.admin.token, { projectName: "Chained imports" })).id;
    for (const [environment, name, value] of [
      ["prod", "DB_HOST", "prod-db"],
      ["prod", "ONLY_PROD", "p"],
      ["staging", "DB_HOST", "staging-db"],
      ["staging", "ONLY_STAGING", "s"],
      ["dev", "ONLY_DEV", "d"],
    ]) {
      await ok("POST", `/api/v3/secrets/raw/${name}`, { ...where(environment), secretValue: value });
    }
    await importInto("dev", "staging");
    await importInto("staging", "prod");
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  maybe("lists an import with what its source imports, the nearest value of a name winning", async () => {
    const { secrets, imports } = await list("dev");
    expect(secrets.map((s: { secretKey: string }) => s.secretKey)).toEqual(["ONLY_DEV"]);
    expect(imports).toHaveLength(1);
    expect(imports[0]).toMatchObject({ environment: "staging", secretPath: "/" });
    expect(imports[0].secrets.map((s: any) => [s.secretKey, s.secretValue, s.environment])).toEqual([
      ["DB_HOST", "staging-db", "staging"],
      ["ONLY_STAGING", "s", "staging"],
      ["ONLY_PROD", "p", "prod"],
    ]);
  });

  maybe("a single read with include_imports finds a secret two imports away, and the nearer of a shadowed name", async () => {
    const far = await ok("GET", `/api/v3/secrets/raw/ONLY_PROD${q({ ...where("dev"), include_imports: "true" })}`);
    expect(far.secret).toMatchObject({ secretValue: "p", environment: "prod" });
    const near = await ok("GET", `/api/v4/secrets/DB_HOST${q({ projectId, environment: "dev", includeImports: "true" })}`);
    expect(near.secret).toMatchObject({ secretValue: "staging-db", environment: "staging" });
    expect((await api.request("GET", `/api/v3/secrets/raw/ONLY_PROD${q(where("dev"))}`, { token: world.admin.token })).status).toBe(404);
  });

  maybe("stops at a cycle: nothing loops, and a folder never shows itself as imported", async () => {
    await importInto("prod", "dev");
    const { imports } = await list("dev");
    expect(imports[0].secrets.map((s: { secretKey: string }) => s.secretKey)).toEqual(["DB_HOST", "ONLY_STAGING", "ONLY_PROD"]);
    const fromProd = await list("prod");
    expect(fromProd.imports[0].secrets.map((s: any) => [s.secretKey, s.environment])).toEqual([
      ["ONLY_DEV", "dev"],
      ["DB_HOST", "staging"],
      ["ONLY_STAGING", "staging"],
    ]);
    expect((await api.request("GET", `/api/v3/secrets/raw/NOWHERE${q({ ...where("dev"), include_imports: "true" })}`, { token: world.admin.token })).status).toBe(404);
  });
});
