import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, expectError, startApi, type ApiResponse, type TestApi, type World } from "../../src/testing/harness.js";
import { itemsOf, openEventStream } from "./events-client.js";
import { insiderScene, query } from "./insider-scene.js";

/**
 * Issue 15, principle 11: no oracles, no stray names. A member whose rules cover only `dev:/apps/**`
 * asks about secrets and folders elsewhere: the refusal is the same whether they exist or not
 * (DESIGN.md §11: 403 when no describeSecret rule could match environment, path and name,
 * ignoring tags). Event streams carry only names the subscriber may describe, and a no-op PATCH
 * does not return what the caller cannot describe.
 */
describe.each(backends)("no existence oracles and no stray names, on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let projectId: string;
  let insider: string;

  const appsOnly = (subject: string, action: string[]) => ({ subject, action, conditions: { environment: "dev", secretPath: { $glob: "/apps/**" } } });
  const crud = ["read", "create", "edit", "delete"];

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    const admin = world.admin.token;
    const ok = async (method: string, path: string, body?: unknown) => {
      const res = await api.request(method, path, { token: admin, body });
      if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    projectId = (await createProject(api, admin, { projectName: "Oracles" })).id;
    const pci = (await ok("POST", `/api/v1/workspace/${projectId}/tags`, { slug: "pci" })).workspaceTag.id;
    for (const name of ["apps", "hidden"]) await ok("POST", "/api/v1/folders", { projectId, environment: "dev", name });
    const put = (name: string, environment: string, secretPath: string, extra = {}) =>
      ok("POST", `/api/v4/secrets/${name}`, { projectId, environment, secretPath, secretValue: `value-of-${name}`, ...extra });
    await put("ROOT_SECRET", "dev", "/");
    await put("HIDDEN_SECRET", "dev", "/hidden");
    await put("APP_KEY", "dev", "/apps");
    await put("APP_CARD", "dev", "/apps", { tagIds: [pci] });
    await put("PROD_SECRET", "prod", "/");
    const role = await ok("POST", `/api/v1/projects/${projectId}/roles`, {
      slug: "apps-only",
      name: "Apps only",
      permissions: [
        appsOnly("secrets", crud),
        { subject: "secrets", action: "read", inverted: true, conditions: { secretTags: { $in: ["pci"] } } },
        appsOnly("secret-folders", crud),
        appsOnly("secret-imports", crud),
      ],
    });
    const bot = await createIdentity(api, admin, world.admin.orgId, "apps-bot");
    await ok("POST", `/api/v2/workspace/${projectId}/identity-memberships/${bot.identityId}`, { roles: [{ role: role.role.slug, isTemporary: false }] });
    insider = bot.token;
  });
  afterAll(async () => {
    if (available) await api.close();
  });
  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));
  const call = (method: string, path: string, body?: unknown) => api.request(method, path, { token: insider, body });

  /** The answer says nothing about which of the two exists: same status, same error, same message up to the name. */
  function sameRefusal(existing: ApiResponse, missing: ApiResponse, targets: [string[], string[]]) {
    // The message may name what was asked for (the same words for either); nothing else may differ.
    const generic = (message: string, words: string[]) =>
      [...words].filter(Boolean).sort((x, y) => y.length - x.length).reduce((m, word) => m.replaceAll(word, "<asked>"), message);
    const a = expectError(existing, 403, "PermissionDenied");
    const b = expectError(missing, 403, "PermissionDenied");
    expect(generic(a.message, targets[0])).toBe(generic(b.message, targets[1]));
  }

  /** Runs `ask` for an existing and a missing target (secret name and path) and expects the same refusal. */
  async function noOracle(ask: (name: string, secretPath: string) => Promise<ApiResponse>, existing: [string, string], missing: [string, string]) {
    sameRefusal(await ask(...existing), await ask(...missing), [existing, missing]);
  }

  const where = (environment: string, secretPath: string) => ({ projectId, environment, secretPath });
  const dev = (secretPath: string) => where("dev", secretPath);

  maybe("reading one secret: outside its rules, 403 whether the secret or its folder exists", async () => {
    const get = (env: string) => (name: string, path: string) => call("GET", `/api/v4/secrets/${name}${query(where(env, path))}`);
    const getRaw = (name: string, path: string) => call("GET", `/api/v3/secrets/raw/${name}${query({ workspaceId: projectId, environment: "dev", secretPath: path })}`);
    await noOracle(get("dev"), ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
    await noOracle(get("dev"), ["HIDDEN_SECRET", "/hidden"], ["HIDDEN_SECRET", "/no-such-folder"]);
    await noOracle(get("prod"), ["PROD_SECRET", "/"], ["NO_SUCH", "/"]);
    await noOracle(getRaw, ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
    // Versions and imports too.
    await noOracle((name, path) => call("GET", `/api/v4/secrets/${name}${query({ ...dev(path), version: 1 })}`), ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
    await noOracle((name, path) => call("GET", `/api/v4/secrets/${name}${query({ ...dev(path), include_imports: true })}`), ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
    // Where it may describe secrets, a missing one is 404 and a missing folder too.
    expect((await get("dev")("APP_KEY", "/apps")).status).toBe(200);
    expectError(await get("dev")("NO_SUCH", "/apps"), 404, "NotFound");
    expectError(await get("dev")("APP_KEY", "/apps/no-such-folder"), 404, "NotFound");
    // A tag deny refuses the secret that carries it (the name is one it may describe: DESIGN.md §11).
    expectError(await get("dev")("APP_CARD", "/apps"), 403);
  });

  maybe("writing one secret: update, delete and retag refuse before looking", async () => {
    const body = (name: string, path: string) => ({ ...dev(path), secretName: name });
    await noOracle((name, path) => call("PATCH", `/api/v4/secrets/${name}`, { ...dev(path), secretValue: "x" }), ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
    await noOracle((name, path) => call("PATCH", `/api/v3/secrets/raw/${name}`, { workspaceId: projectId, environment: "dev", secretPath: path, secretValue: "x" }), ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
    await noOracle((name, path) => call("DELETE", `/api/v4/secrets/${name}`, dev(path)), ["HIDDEN_SECRET", "/hidden"], ["NO_SUCH", "/no-such-folder"]);
    await noOracle((name, path) => call("DELETE", `/api/v3/secrets/raw/${name}`, { workspaceId: projectId, environment: "dev", secretPath: path }), ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
    await noOracle((name, path) => call("POST", `/api/v3/secrets/tags/${name}`, { ...body(name, path), tagSlugs: ["pci"] }), ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
    // A personal override needs the shared secret: creating one must not tell whether it exists.
    await noOracle((name, path) => call("POST", `/api/v4/secrets/${name}`, { ...dev(path), type: "personal", secretValue: "mine" }), ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
    // Nor override one it may not describe (the tag deny), which it would then see under its own value.
    expectError(await call("POST", "/api/v4/secrets/APP_CARD", { ...dev("/apps"), type: "personal", secretValue: "mine" }), 403);
    expect(await adminValue("ROOT_SECRET", "/")).toBe("value-of-ROOT_SECRET");
  });

  maybe("batches refuse before looking", async () => {
    const items = (name: string, path: string) => [{ secretKey: name, secretPath: path }];
    await noOracle((name, path) => call("PATCH", "/api/v4/secrets/batch", { ...dev("/"), secrets: items(name, path).map((i) => ({ ...i, secretValue: "x" })) }), ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
    await noOracle((name, path) => call("PATCH", "/api/v4/secrets/batch", { ...dev("/"), mode: "ignore", secrets: items(name, path) }), ["HIDDEN_SECRET", "/hidden"], ["NO_SUCH", "/hidden"]);
    await noOracle((name, path) => call("DELETE", "/api/v4/secrets/batch", { ...dev("/"), secrets: items(name, path) }), ["ROOT_SECRET", "/"], ["NO_SUCH", "/"]);
  });

  maybe("listing a folder: outside its rules, 403 whether the folder exists", async () => {
    const list = (recursive: boolean) => (_: string, path: string) => call("GET", `/api/v4/secrets${query({ ...dev(path), recursive })}`);
    await noOracle(list(false), ["", "/hidden"], ["", "/no-such-folder"]);
    await noOracle(list(true), ["", "/hidden"], ["", "/no-such-folder"]);
    await noOracle(list(false), ["", "/"], ["", "/no-such-folder"]);
    // Recursively from the root, its folder is below: listed, with only what it may describe.
    const all = await list(true)("", "/");
    expect(all.body.secrets.map((s: { secretKey: string }) => s.secretKey)).toEqual(["APP_KEY"]);
    expectError(await list(false)("", "/apps/no-such-folder"), 404);
    const apps = await call("GET", `/api/v4/secrets${query(dev("/apps"))}`);
    expect(apps.body.secrets.map((s: { secretKey: string }) => s.secretKey)).toEqual(["APP_KEY"]);
  });

  maybe("folders and imports: create, delete and import refuse before looking", async () => {
    const folderAt = (path: string) => ({ projectId, environment: "dev", path });
    await noOracle((_, name) => call("POST", "/api/v1/folders", { ...folderAt("/"), name }), ["", "hidden"], ["", "no-such-folder"]);
    await noOracle((_, name) => call("DELETE", `/api/v1/folders/${name}`, folderAt("/")), ["", "hidden"], ["", "no-such-folder"]);
    await noOracle((_, path) => call("DELETE", "/api/v1/folders", folderAt(path)), ["", "/hidden"], ["", "/no-such-folder"]);
    await noOracle(
      (_, path) => call("POST", "/api/v1/secret-imports", { ...folderAt("/apps"), import: { environment: "dev", path } }),
      ["", "/hidden"],
      ["", "/no-such-folder"],
    );
    // Inside its rules the answers tell, as they should.
    expectError(await call("POST", "/api/v1/folders", { ...folderAt("/"), name: "apps" }), 403);
    expect((await call("POST", "/api/v1/folders", { ...folderAt("/apps"), name: "inner" })).status).toBe(200);
    expectError(await call("POST", "/api/v1/folders", { ...folderAt("/apps"), name: "inner" }), 400);
    expectError(await call("DELETE", "/api/v1/folders/no-such", folderAt("/apps")), 404);
  });

  async function adminValue(name: string, secretPath: string) {
    const res = await api.request("GET", `/api/v4/secrets/${name}${query(dev(secretPath))}`, { token: world.admin.token });
    return res.body.secret?.secretValue;
  }

  maybe("a no-op PATCH does not return comment, metadata or tags of a secret the caller cannot describe", async () => {
    const s = await insiderScene(api, world, "read");
    for (const body of [{}, { secretValue: "value-of-CARD" }]) {
      const res = await s.call("PATCH", "/api/v4/secrets/CARD", { projectId: s.projectId, environment: "dev", ...body });
      expect(res.status).toBe(200);
      expect(res.body.secret).toMatchObject({ secretKey: "CARD", secretValue: "", secretValueHidden: true, secretComment: "", secretMetadata: [], tags: [] });
      expect(JSON.stringify(res.body)).not.toContain("card comment");
      expect(JSON.stringify(res.body)).not.toContain("payments");
    }
    // The same with v3 raw and batch.
    const raw = await s.call("PATCH", "/api/v3/secrets/raw/CARD", { workspaceId: s.projectId, environment: "dev" });
    expect(raw.body.secret).toMatchObject({ secretComment: "", secretMetadata: [], tags: [] });
    const batch = await s.call("PATCH", "/api/v4/secrets/batch", { projectId: s.projectId, environment: "dev", secrets: [{ secretKey: "CARD" }] });
    expect(batch.body.secrets[0]).toMatchObject({ secretComment: "", secretMetadata: [], tags: [] });
    // Without edit, even a no-op is refused.
    const noEdit = await insiderScene(api, world, "read", [
      { subject: "secrets", action: ["read", "edit"] },
      { subject: "secrets", action: ["read", "edit"], inverted: true, conditions: { secretTags: { $in: ["pci"] } } },
    ]);
    expectError(await noEdit.call("PATCH", "/api/v4/secrets/CARD", { projectId: noEdit.projectId, environment: "dev" }), 403);
  });

  maybe("event streams carry only names the subscriber may describe", async () => {
    const s = await insiderScene(api, world, "read");
    const stream = await openEventStream(api.url, s.insider, {
      projectId: s.projectId,
      register: ["secret:create", "secret:update", "secret:delete"].map((event) => ({ event, conditions: { environmentSlug: "dev", secretPath: "/**" } })),
    });
    expect(stream.status).toBe(200);
    try {
      const at = { projectId: s.projectId, environment: "dev" };
      await s.ok("POST", "/api/v4/secrets/batch", {
        ...at,
        secrets: [{ secretKey: "SEEN_1" }, { secretKey: "NEW_CARD", tagIds: [s.tagIds.pci] }, { secretKey: "X_LIVE_Y" }, { secretKey: "IN_VAULT", secretPath: "/vault" }],
      });
      expect(itemsOf(await stream.next())).toEqual(["dev:/:SEEN_1"]);
      // Updates: one of a hidden secret is not announced at all; a rename into a hidden name neither.
      await s.ok("PATCH", "/api/v4/secrets/NEW_CARD", { ...at, secretValue: "changed" });
      await s.ok("PATCH", "/api/v4/secrets/SEEN_1", { ...at, newSecretName: "SEEN_LIVE_NOW" });
      await s.ok("PATCH", "/api/v4/secrets/OPEN", { ...at, secretValue: "changed", tagIds: [s.tagIds.pci] });
      await s.ok("PATCH", "/api/v4/secrets/batch", { ...at, secrets: [{ secretKey: "SEEN_LIVE_NOW", newSecretName: "SEEN_2" }, { secretKey: "CARD", secretValue: "x" }] });
      const update = await stream.next();
      expect(update.event).toBe("secret:update");
      expect(itemsOf(update)).toEqual(["dev:/:SEEN_2"]);
      // Deletions: the deleted secret's tags and name decide.
      await s.ok("DELETE", "/api/v4/secrets/batch", { ...at, secrets: [{ secretKey: "NEW_CARD" }, { secretKey: "X_LIVE_Y" }] });
      await s.ok("DELETE", "/api/v1/folders/vault", at);
      await s.ok("DELETE", "/api/v4/secrets/SEEN_2", at);
      const deleted = await stream.next();
      expect(deleted.event).toBe("secret:delete");
      expect(itemsOf(deleted)).toEqual(["dev:/:SEEN_2"]);
      expect(stream.text()).not.toMatch(/CARD|LIVE|VAULT|IN_VAULT/);
    } finally {
      stream.close();
    }
  });
});
