import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Issue 15, principle 7: deleting a container deletes only what you may delete. A member denied
 * `delete` on a secret (by tag or by name) or on a proxied service used to remove it anyway by
 * deleting the folder, the environment or the project around it.
 */

const LIVE_VALUE = "sk_live_must_survive";

describe.each(backends)("container deletes on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let admin: string;
  let available = true;
  let seq = 0;

  const ok = async (method: string, path: string, body?: unknown, token = admin) => {
    const res = await api.request(method, path, { token, body });
    if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    admin = world.admin.token;
  });
  afterAll(async () => {
    if (available) await api.close();
  });
  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  /**
   * A project where Mallory manages folders, environments and secrets, may even delete the
   * project, but may not delete secrets tagged `pci` or named like `*_LIVE_*`, nor proxied services.
   */
  async function world7() {
    const project = await createProject(api, admin, { projectName: `Deletes ${++seq}` });
    const projectId = project.id;
    const pci = (await ok("POST", `/api/v1/workspace/${projectId}/tags`, { slug: "pci", name: "pci" })).workspaceTag.id;
    await ok("POST", `/api/v1/projects/${projectId}/roles`, {
      slug: "folder-keeper",
      name: "Folder keeper",
      permissions: [
        { subject: "secrets", action: ["read", "create", "edit", "delete"] },
        { subject: "secrets", action: ["delete"], conditions: { secretTags: { $in: ["pci"] } }, inverted: true },
        { subject: "secrets", action: ["delete"], conditions: { secretName: { $glob: "*_LIVE_*" } }, inverted: true },
        { subject: "secret-folders", action: ["read", "create", "edit", "delete"] },
        { subject: "secret-imports", action: ["read", "create", "edit", "delete"] },
        { subject: "environments", action: ["read", "create", "edit", "delete"] },
        { subject: "tags", action: ["read", "create", "delete"] },
        { subject: "proxied-services", action: ["read"] },
        { subject: "workspace", action: ["delete"] },
      ],
    });
    const mallory = await createUser(api, admin, world.admin.orgId, `mallory-${seq}@acme.test`);
    await ok("POST", `/api/v2/workspace/${projectId}/memberships`, { usernames: [mallory.email], roleSlugs: ["folder-keeper"] });
    const folder = (environment: string, path: string, name: string) => ok("POST", "/api/v1/folders", { projectId, environment, path, name });
    const secret = (environment: string, secretPath: string, key: string, value: string, tagIds: string[] = []) =>
      ok("POST", `/api/v4/secrets/${key}`, { projectId, environment, secretPath, secretValue: value, tagIds });
    return { projectId, pci, mallory, folder, secret };
  }

  const readValue = async (projectId: string, environment: string, secretPath: string, key: string) => {
    const res = await api.request("GET", `/api/v4/secrets/${key}?projectId=${projectId}&environment=${environment}&secretPath=${encodeURIComponent(secretPath)}`, { token: admin });
    return res.status === 200 ? res.body.secret.secretValue : res.status;
  };
  const folderPaths = async (projectId: string, environment: string) =>
    (await ok("GET", `/api/v1/folders?projectId=${projectId}&environment=${environment}&path=/&recursive=true`)).folders.map((f: { path: string }) => f.path);

  maybe("a folder holding a secret the actor may not delete stays, with everything in it", async () => {
    const w = await world7();
    await w.folder("dev", "/", "app");
    await w.folder("dev", "/app", "locked");
    await w.secret("dev", "/app", "OPEN", "open");
    await w.secret("dev", "/app/locked", "CARD_KEY", LIVE_VALUE, [w.pci]);
    const del = (body: Record<string, unknown>, path = "/api/v1/folders") => api.request("DELETE", path, { token: w.mallory.token, body: { projectId: w.projectId, environment: "dev", ...body } });

    for (const attempt of [
      () => del({ path: "/", folderIdOrName: "app" }),
      () => del({ path: "/app" }),
      () => del({ path: "/app/locked" }),
      () => del({ path: "/app" }, "/api/v1/folders/locked"),
    ]) {
      const body = expectError(await attempt(), 403, "PermissionDenied");
      expect(body.message).toMatch(/1 secret/);
      // Says how many, never which.
      expect(body.message).not.toContain("CARD_KEY");
    }
    expect(await folderPaths(w.projectId, "dev")).toEqual(["/app", "/app/locked"]);
    expect(await readValue(w.projectId, "dev", "/app", "OPEN")).toBe("open");
    expect(await readValue(w.projectId, "dev", "/app/locked", "CARD_KEY")).toBe(LIVE_VALUE);

    // A folder of what Mallory may delete is hers to delete.
    await w.folder("dev", "/", "scratch");
    await w.secret("dev", "/scratch", "TEMP", "t");
    expect((await del({ path: "/", folderIdOrName: "scratch" })).status).toBe(200);
  });

  maybe("a name deny holds as a tag deny does, personal overrides included", async () => {
    const w = await world7();
    await w.folder("dev", "/", "billing");
    await w.secret("dev", "/billing", "STRIPE_LIVE_KEY", LIVE_VALUE);
    const res = await api.request("DELETE", "/api/v1/folders/billing", { token: w.mallory.token, body: { projectId: w.projectId, environment: "dev", path: "/" } });
    expectError(res, 403, "PermissionDenied");
    expect(await readValue(w.projectId, "dev", "/billing", "STRIPE_LIVE_KEY")).toBe(LIVE_VALUE);
  });

  maybe("a folder holding a proxied service the actor may not delete stays", async () => {
    const w = await world7();
    await w.folder("dev", "/", "agents");
    await w.secret("dev", "/agents", "GH_TOKEN", "ghp_value");
    const { service } = await ok("POST", "/api/v1/proxied-services", {
      projectId: w.projectId, environment: "dev", secretPath: "/agents", name: "github", hostPattern: "api.github.com",
      credentials: [{ headerName: "Authorization", headerPrefix: "Bearer", secretKey: "GH_TOKEN" }],
    });
    const res = await api.request("DELETE", "/api/v1/folders/agents", { token: w.mallory.token, body: { projectId: w.projectId, environment: "dev", path: "/" } });
    expect(expectError(res, 403, "PermissionDenied").message).toMatch(/1 proxied service/);
    expect((await ok("GET", `/api/v1/proxied-services/${service.id}`)).service.name).toBe("github");
    expect(await readValue(w.projectId, "dev", "/agents", "GH_TOKEN")).toBe("ghp_value");
  });

  maybe("an environment holding what the actor may not delete is not deleted", async () => {
    const w = await world7();
    const envOf = async (slug: string) => (await ok("GET", `/api/v1/projects/${w.projectId}`)).project.environments.find((e: { slug: string }) => e.slug === slug);
    await w.folder("staging", "/", "deep");
    await w.secret("staging", "/deep", "CARD_KEY", LIVE_VALUE, [w.pci]);
    const staging = await envOf("staging");
    const res = await api.request("DELETE", `/api/v1/workspace/${w.projectId}/environments/${staging.id}`, { token: w.mallory.token });
    expect(expectError(res, 403, "PermissionDenied").message).toMatch(/environment 'staging'.*1 secret/);
    expect(await envOf("staging")).toBeDefined();
    expect(await readValue(w.projectId, "staging", "/deep", "CARD_KEY")).toBe(LIVE_VALUE);
    // Not even soft-deleted: the purge will never take it.
    expect((await ok("GET", `/api/v1/projects/${w.projectId}`)).project.deletedEnvironments).toEqual([]);

    // An environment of what Mallory may delete is hers to delete.
    const qa = (await ok("POST", `/api/v1/workspace/${w.projectId}/environments`, { name: "QA", slug: "qa" })).environment;
    await w.secret("qa", "/", "QA_ONLY", "q");
    expect((await api.request("DELETE", `/api/v1/workspace/${w.projectId}/environments/${qa.id}`, { token: w.mallory.token })).status).toBe(200);
  });

  maybe("a project holding what the actor may not delete is not deleted, on either path", async () => {
    const w = await world7();
    await w.secret("prod", "/", "CARD_KEY", LIVE_VALUE, [w.pci]);
    for (const path of [`/api/v1/projects/${w.projectId}`, `/api/v1/workspace/${w.projectId}`]) {
      const body = expectError(await api.request("DELETE", path, { token: w.mallory.token }), 403, "PermissionDenied");
      expect(body.message).not.toContain("CARD_KEY");
    }
    expect((await api.request("GET", `/api/v1/projects/${w.projectId}`, { token: admin })).status).toBe(200);
    expect(await readValue(w.projectId, "prod", "/", "CARD_KEY")).toBe(LIVE_VALUE);
    // Once the admin removes what Mallory may not delete, the project is hers to delete.
    await ok("DELETE", "/api/v4/secrets/CARD_KEY", { projectId: w.projectId, environment: "prod", secretPath: "/" });
    expect((await api.request("DELETE", `/api/v1/projects/${w.projectId}`, { token: w.mallory.token })).status).toBe(200);
    expectError(await api.request("GET", `/api/v1/projects/${w.projectId}`, { token: admin }), 404);
  });

  maybe("a project holding a proxied service the actor may not delete is not deleted", async () => {
    const w = await world7();
    await w.secret("dev", "/", "GH_TOKEN", "ghp_value");
    await ok("POST", "/api/v1/proxied-services", {
      projectId: w.projectId, environment: "dev", secretPath: "/", name: "github", hostPattern: "api.github.com",
      credentials: [{ headerName: "Authorization", secretKey: "GH_TOKEN" }],
    });
    expect(expectError(await api.request("DELETE", `/api/v1/projects/${w.projectId}`, { token: w.mallory.token }), 403).message).toMatch(/proxied service/);
    expect((await api.request("GET", `/api/v1/projects/${w.projectId}`, { token: admin })).status).toBe(200);
  });
});
