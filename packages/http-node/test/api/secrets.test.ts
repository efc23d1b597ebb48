import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

describe.each(backends)("secrets API on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let token: string;
  let project: { id: string; slug: string };
  let available = true;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    token = world.admin.token;
    project = await createProject(api, token, { projectName: "Secrets API" });
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));
  const call = (method: string, path: string, body?: unknown, as = token) => api.request(method, path, { token: as, body });
  const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;
  const ok = async (method: string, path: string, body?: unknown, as = token) => {
    const res = await call(method, path, body, as);
    if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  maybe("creates, reads, updates and deletes one secret on v4", async () => {
    const where = { projectId: project.id, environment: "dev", secretPath: "/" };
    const created = await ok("POST", "/api/v4/secrets/STRIPE_KEY", { ...where, secretValue: "sk_live_1", secretComment: "billing" });
    expect(created.secret).toMatchObject({
      _id: created.secret.id,
      workspace: project.id,
      environment: "dev",
      secretKey: "STRIPE_KEY",
      secretValue: "sk_live_1",
      secretValueHidden: false,
      secretComment: "billing",
      secretPath: "/",
      version: 1,
      type: "shared",
      tags: [],
      secretMetadata: [],
    });
    expectError(await call("POST", "/api/v4/secrets/STRIPE_KEY", { ...where, secretValue: "again" }), 400, "BadRequest");

    const got = await ok("GET", `/api/v4/secrets/STRIPE_KEY${q(where)}`);
    expect(got.secret.secretValue).toBe("sk_live_1");

    const updated = await ok("PATCH", "/api/v4/secrets/STRIPE_KEY", { ...where, secretValue: "sk_live_2" });
    expect(updated.secret).toMatchObject({ secretValue: "sk_live_2", secretComment: "billing", version: 2 });
    const v1 = await ok("GET", `/api/v4/secrets/STRIPE_KEY${q({ ...where, version: "1" })}`);
    expect(v1.secret).toMatchObject({ secretValue: "sk_live_1", version: 1 });

    const deleted = await ok("DELETE", "/api/v4/secrets/STRIPE_KEY", where);
    expect(deleted.secret.secretKey).toBe("STRIPE_KEY");
    expectError(await call("GET", `/api/v4/secrets/STRIPE_KEY${q(where)}`), 404, "NotFound");
    expectError(await call("DELETE", `/api/v4/secrets/STRIPE_KEY${q(where)}`), 404, "NotFound");
  });

  maybe("validates inputs with 422 and unknown environments with 404", async () => {
    expectError(await call("POST", "/api/v4/secrets/HAS SPACE", { projectId: project.id, environment: "dev" }), 422, "ValidationFailure");
    expectError(await call("POST", "/api/v4/secrets/X", { environment: "dev" }), 422);
    expectError(await call("GET", `/api/v4/secrets${q({ projectId: project.id, environment: "dev", secretPath: "/../etc" })}`), 422);
    expectError(await call("GET", `/api/v4/secrets${q({ projectId: project.id, environment: "nope" })}`), 404);
  });

  maybe("batch endpoints: create, update in every mode, delete, all or nothing", async () => {
    const base = { projectId: project.id, environment: "staging" };
    await ok("POST", "/api/v1/folders", { ...base, name: "api" });
    const created = await ok("POST", "/api/v4/secrets/batch", {
      ...base,
      secretPath: "/api",
      secrets: [
        { secretKey: "HOST", secretValue: "db.internal" },
        { secretKey: "PORT", secretValue: "5432" },
      ],
    });
    expect(created.secrets.map((s: any) => [s.secretKey, s.secretPath, s.version])).toEqual([
      ["HOST", "/api", 1],
      ["PORT", "/api", 1],
    ]);

    const missing = await call("PATCH", "/api/v4/secrets/batch", {
      ...base,
      secretPath: "/api",
      secrets: [
        { secretKey: "HOST", secretValue: "db2.internal" },
        { secretKey: "USER", secretValue: "app" },
        { secretKey: "PASSWORD", secretValue: "pw" },
      ],
    });
    expect(expectError(missing, 404, "NotFound").message).toMatch(/USER.*PASSWORD/);

    const upserted = await ok("PATCH", "/api/v4/secrets/batch", {
      ...base,
      mode: "upsert",
      secrets: [
        { secretKey: "HOST", secretValue: "db2.internal", secretPath: "/api" },
        { secretKey: "USER", secretValue: "app", secretPath: "/api" },
        { secretKey: "ROOT_LEVEL", secretValue: "r" },
      ],
    });
    expect(upserted.secrets.map((s: any) => [s.secretKey, s.secretPath, s.version, s.secretValue])).toEqual([
      ["HOST", "/api", 2, "db2.internal"],
      ["USER", "/api", 1, "app"],
      ["ROOT_LEVEL", "/", 1, "r"],
    ]);
    expect(upserted.secrets[0]).toMatchObject({ isRotatedSecret: false, skipMultilineEncoding: false, actor: { actorType: "identity" } });

    expectError(
      await call("PATCH", "/api/v4/secrets/batch", { ...base, secretPath: "/api", secrets: [{ secretKey: "HOST", newSecretName: "PORT" }] }),
      400,
    );
    expectError(await call("PATCH", "/api/v4/secrets/batch", { ...base, secretPath: "/nowhere", secrets: [{ secretKey: "HOST" }] }), 404);
    expectError(await call("PATCH", "/api/v4/secrets/batch", { ...base, secretPath: "/api", secrets: [{ secretKey: "HOST", tagIds: ["no-such-tag"] }] }), 404);
    expectError(await call("PATCH", "/api/v4/secrets/batch", { ...base, secrets: [] }), 422);

    expectError(
      await call("DELETE", "/api/v4/secrets/batch", { ...base, secretPath: "/api", secrets: [{ secretKey: "HOST" }, { secretKey: "GHOST" }] }),
      404,
    );
    const list = await ok("GET", `/api/v4/secrets${q({ ...base, secretPath: "/api" })}`);
    expect(list.secrets.map((s: any) => s.secretKey)).toEqual(["HOST", "PORT", "USER"]);
    const deleted = await ok("DELETE", "/api/v4/secrets/batch", { ...base, secretPath: "/api", secrets: [{ secretKey: "HOST" }, { secretKey: "PORT", type: "shared" }] });
    expect(deleted.secrets.map((s: any) => s.secretKey)).toEqual(["HOST", "PORT"]);
    const recursive = await ok("GET", `/api/v4/secrets${q({ ...base, recursive: "true" })}`);
    expect(recursive.secrets.map((s: any) => `${s.secretPath}:${s.secretKey}`)).toEqual(["/:ROOT_LEVEL", "/api:USER"]);
  });

  maybe("attaches tags by slug: 404 for an unknown slug, 400 when already attached", async () => {
    await ok("POST", `/api/v1/workspace/${project.id}/tags`, { slug: "payments", color: "#22c55e" });
    const tags = await ok("GET", `/api/v1/workspace/${project.id}/tags`);
    expect(tags.workspaceTags.map((t: any) => t.slug)).toEqual(["payments"]);
    await ok("POST", "/api/v4/secrets/TAGGED", { projectId: project.id, environment: "prod", secretValue: "v" });
    const body = { projectSlug: project.slug, environment: "prod", secretPath: "/", type: "shared" };
    expectError(await call("POST", "/api/v3/secrets/tags/TAGGED", { ...body, tagSlugs: ["unknown"] }), 404, "NotFound");
    const attached = await ok("POST", "/api/v3/secrets/tags/TAGGED", { ...body, tagSlugs: ["payments"] });
    expect(attached.secret).toMatchObject({ algorithm: "aes-256-gcm", keyEncoding: "base64", version: 2, tags: [{ slug: "payments", color: "#22c55e" }] });
    for (const field of ["secretKeyCiphertext", "secretKeyIV", "secretKeyTag", "secretValueCiphertext", "secretValueIV", "secretValueTag", "secretCommentCiphertext"]) {
      expect(typeof attached.secret[field]).toBe("string");
    }
    expect(attached.secret).not.toHaveProperty("secretValue");
    expectError(await call("POST", "/api/v3/secrets/tags/TAGGED", { ...body, tagSlugs: ["payments"] }), 400, "BadRequest");
    const filtered = await ok("GET", `/api/v4/secrets${q({ projectId: project.id, environment: "prod", tagSlugs: "payments" })}`);
    expect(filtered.secrets.map((s: any) => s.secretKey)).toEqual(["TAGGED"]);
  });

  maybe("serves an ETag on the v4 list that changes whenever the content does, and 304 for If-None-Match", async () => {
    const where = { projectId: project.id, environment: "dev", secretPath: "/" };
    await ok("POST", "/api/v4/secrets/ETAGGED", { ...where, secretValue: "1" });
    const first = await call("GET", `/api/v4/secrets${q(where)}`);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await call("GET", `/api/v4/secrets${q(where)}`);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.body).toEqual(first.body);
    const notModified = await api.request("GET", `/api/v4/secrets${q(where)}`, { token, headers: { "if-none-match": etag! } });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeUndefined();
    await ok("PATCH", "/api/v4/secrets/ETAGGED", { ...where, secretValue: "2" });
    const changed = await api.request("GET", `/api/v4/secrets${q(where)}`, { token, headers: { "if-none-match": etag! } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    // Asked again without If-None-Match, the new content, never an answer kept from before.
    const fresh = await call("GET", `/api/v4/secrets${q(where)}`);
    expect(fresh.body.secrets.find((s: any) => s.secretKey === "ETAGGED").secretValue).toBe("2");
    expect(fresh.headers.get("etag")).toBe(changed.headers.get("etag"));
    // Another caller, who may see less, gets its own answer under its own tag.
    const viewer = await createUser(api, token, world.admin.orgId, "etag-viewer@acme.test");
    await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [viewer.email], roleSlugs: ["viewer"] });
    const theirs = await call("GET", `/api/v4/secrets${q({ ...where, viewSecretValue: "false" })}`, undefined, viewer.token);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("etag")).not.toBe(changed.headers.get("etag"));
    expect(theirs.body.secrets.find((s: any) => s.secretKey === "ETAGGED").secretValue).toBe("");
  });

  maybe("environments: create, rename, soft delete with deletedEnvironments", async () => {
    const created = await ok("POST", `/api/v1/workspace/${project.id}/environments`, { name: "Preview", slug: "preview" });
    expect(created.environment).toMatchObject({ name: "Preview", slug: "preview" });
    expectError(await call("POST", `/api/v1/workspace/${project.id}/environments`, { name: "Preview", slug: "preview" }), 400);
    const renamed = await ok("PATCH", `/api/v1/workspace/${project.id}/environments/${created.environment.id}`, { name: "Preview apps" });
    expect(renamed.environment.name).toBe("Preview apps");
    await ok("POST", "/api/v4/secrets/PREVIEW_ONLY", { projectId: project.id, environment: "preview", secretValue: "p" });
    const deleted = await ok("DELETE", `/api/v1/workspace/${project.id}/environments/${created.environment.id}`);
    const gone = deleted.workspace.deletedEnvironments.find((e: any) => e.id === created.environment.id);
    expect(gone).toMatchObject({ slug: "preview", name: "Preview apps", deletedBy: { type: "identity", id: world.admin.identityId } });
    expect(Date.parse(gone.deleteAfter) - Date.parse(gone.softDeletedAt)).toBe(30 * 24 * 60 * 60 * 1000);
    expect(deleted.workspace.environments.map((e: any) => e.slug)).not.toContain("preview");
    expectError(await call("GET", `/api/v4/secrets/PREVIEW_ONLY${q({ projectId: project.id, environment: "preview" })}`), 404);
  });

  maybe("folders and imports; include_imports and includeImports both work", async () => {
    await ok("POST", "/api/v1/folders", { workspaceId: project.id, environment: "prod", name: "common" });
    await ok("POST", "/api/v1/folders", { workspaceId: project.id, environment: "prod", name: "deep", path: "/common" });
    const folders = await ok("GET", `/api/v1/folders${q({ workspaceId: project.id, environment: "prod", recursive: "true" })}`);
    expect(folders.folders.map((f: any) => f.path)).toEqual(["/common", "/common/deep"]);
    await ok("POST", "/api/v4/secrets/SENTRY_DSN", { projectId: project.id, environment: "prod", secretPath: "/common", secretValue: "https://dsn" });
    const created = await ok("POST", "/api/v1/secret-imports", {
      workspaceId: project.id,
      environment: "dev",
      path: "/",
      import: { environment: "prod", path: "/common" },
    });
    expect(created.secretImport).toMatchObject({ importPath: "/common", importEnv: { slug: "prod" } });
    const listed = await ok("GET", `/api/v1/secret-imports${q({ workspaceId: project.id, environment: "dev", path: "/" })}`);
    expect(listed.secretImports).toHaveLength(1);
    for (const flag of ["include_imports", "includeImports"]) {
      const res = await ok("GET", `/api/v4/secrets${q({ projectId: project.id, environment: "dev", [flag]: "true" })}`);
      expect(res.imports).toEqual([
        expect.objectContaining({ environment: "prod", secretPath: "/common", secrets: [expect.objectContaining({ secretKey: "SENTRY_DSN", secretValue: "https://dsn" })] }),
      ]);
    }
    const without = await ok("GET", `/api/v4/secrets${q({ projectId: project.id, environment: "dev" })}`);
    expect(without.imports).toEqual([]);
    await ok("DELETE", `/api/v1/secret-imports/${created.secretImport.id}${q({ workspaceId: project.id })}`);
    await ok("DELETE", `/api/v1/folders/deep`, { projectId: project.id, environment: "prod", path: "/common" });
    const after = await ok("GET", `/api/v1/folders${q({ projectId: project.id, environment: "prod", path: "/common" })}`);
    expect(after.folders).toEqual([]);
  });

  maybe("filters reads by permission: a viewer reads, a member writes, a custom rule narrows", async () => {
    const base = { projectId: project.id, environment: "prod", secretPath: "/" };
    await ok("POST", "/api/v4/secrets/batch", {
      ...base,
      secrets: [
        { secretKey: "PUBLIC_URL", secretValue: "https://example.test" },
        { secretKey: "PRIVATE_KEY", secretValue: "-----BEGIN" },
      ],
    });
    const viewer = await createUser(api, token, world.admin.orgId, "viewer@acme.test");
    const member = await createUser(api, token, world.admin.orgId, "member@acme.test");
    const narrow = await createUser(api, token, world.admin.orgId, "narrow@acme.test");
    await ok("POST", `/api/v1/projects/${project.id}/roles`, {
      slug: "public-only",
      name: "Public only",
      permissions: [
        { subject: "secrets", action: ["describeSecret"], conditions: { environment: "prod" } },
        { subject: "secrets", action: ["readValue"], conditions: { environment: "prod", secretName: { $glob: "PUBLIC_*" } } },
      ],
    });
    await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [viewer.email], roleSlugs: ["viewer"] });
    await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [member.email], roleSlugs: ["member"] });
    await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [narrow.email], roleSlugs: ["public-only"] });

    const asViewer = await ok("GET", `/api/v4/secrets${q(base)}`, undefined, viewer.token);
    expect(asViewer.secrets.find((s: any) => s.secretKey === "PRIVATE_KEY")).toMatchObject({ secretValue: "-----BEGIN", secretValueHidden: false });
    expectError(await call("PATCH", "/api/v4/secrets/PUBLIC_URL", { ...base, secretValue: "x" }, viewer.token), 403, "PermissionDenied");
    const byMember = await ok("PATCH", "/api/v4/secrets/PUBLIC_URL", { ...base, secretValue: "https://new.example.test" }, member.token);
    expect(byMember.secret).toMatchObject({ version: 2, actor: { actorType: "user", actorId: member.userId } });

    const asNarrow = await ok("GET", `/api/v4/secrets${q(base)}`, undefined, narrow.token);
    const shown = Object.fromEntries(asNarrow.secrets.map((s: any) => [s.secretKey, [s.secretValue, s.secretValueHidden]]));
    expect(shown.PUBLIC_URL).toEqual(["https://new.example.test", false]);
    expect(shown.PRIVATE_KEY).toEqual(["", true]);
    // No rule of the role could describe anything in dev: refused, whether dev holds secrets or not.
    expectError(await call("GET", `/api/v4/secrets${q({ ...base, environment: "dev" })}`, undefined, narrow.token), 403, "PermissionDenied");
    expectError(await call("DELETE", "/api/v4/secrets/PUBLIC_URL", base, narrow.token), 403);

    const outsider = await createUser(api, token, world.admin.orgId, "outsider@acme.test");
    expectError(await call("GET", `/api/v4/secrets${q(base)}`, undefined, outsider.token), 403);
    expectError(await call("GET", `/api/v4/secrets${q(base)}`, undefined, "srt_not_a_token"), 401);
  });

  maybe("the raw v3 endpoints take workspaceId and query-string flags", async () => {
    const where = { workspaceId: project.id, environment: "dev", secretPath: "/" };
    await ok("POST", "/api/v3/secrets/raw/RAW_ONE", { ...where, secretValue: "r1", type: "shared" });
    const list = await ok("GET", `/api/v3/secrets/raw${q({ ...where, include_imports: "false", recursive: "false", expandSecretReferences: "true" })}`);
    expect(list.secrets.some((s: any) => s.secretKey === "RAW_ONE" && s.secretValue === "r1")).toBe(true);
    const hidden = await ok("GET", `/api/v3/secrets/raw/RAW_ONE${q({ ...where, viewSecretValue: "false" })}`);
    expect(hidden.secret).toMatchObject({ secretValue: "", secretValueHidden: true });
    await ok("PATCH", "/api/v3/secrets/raw/RAW_ONE", { ...where, newSecretName: "RAW_RENAMED" });
    await ok("DELETE", "/api/v3/secrets/raw/RAW_RENAMED", where);
  });
});
