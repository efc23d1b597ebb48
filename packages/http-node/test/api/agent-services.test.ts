import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostListOfLength } from "../../src/testing/agent-fixtures.js";
import { backendAvailable, backends, bootstrap, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

const SERVICE_KEYS = ["id", "folderId", "name", "hostPattern", "createdAt", "updatedAt", "lastUsedAt", "isEnabled", "credentials"].sort();
const CREDENTIAL_KEYS = [
  "id", "serviceId", "role", "secretKey", "headerName", "headerPrefix", "headerPurpose", "placeholderKey", "placeholderValue",
  "substitutionSurfaces", "dynamicSecretName", "dynamicSecretField",
].sort();

const bearer = { headerName: "Authorization", headerPrefix: "Bearer", secretKey: "GITHUB_TOKEN" };

describe.each(backends)("proxied services API on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let admin: string;
  let project: { id: string; environments: { slug: string; id: string }[] };
  let available = true;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    admin = world.admin.token;
    project = await createProject(api, admin, { projectName: "Agents" });
    const put = async (secretPath: string, key: string, value: string) => {
      const res = await api.request("POST", `/api/v4/secrets/${key}`, { token: admin, body: { projectId: project.id, environment: "dev", secretPath, secretValue: value } });
      if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    };
    await api.request("POST", "/api/v1/folders", { token: admin, body: { projectId: project.id, environment: "dev", name: "payments" } });
    await put("/", "GITHUB_TOKEN", "ghp_never_shown_1");
    await put("/", "GITHUB_TOKEN_NEXT", "ghp_never_shown_2");
    await put("/", "API_USER", "robot");
    await put("/payments", "STRIPE_KEY", "sk_never_shown_3");
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));
  const where = () => ({ projectId: project.id, environment: "dev", secretPath: "/" });
  const create = (body: Record<string, unknown>, token = admin) =>
    api.request("POST", "/api/v1/proxied-services", {
      token,
      body: { ...where(), name: "github", hostPattern: "api.github.com", credentials: [bearer], ...body },
    });
  const created = async (body: Record<string, unknown> = {}) => {
    const res = await create(body);
    if (res.status !== 200) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.service;
  };
  const patch = (id: string, body: Record<string, unknown>) => api.request("PATCH", `/api/v1/proxied-services/${id}`, { token: admin, body });
  let names = 0;
  const unique = (prefix = "svc") => `${prefix}-${++names}`;

  maybe("creates a service with exactly SPEC's fields", async () => {
    const service = await created({
      name: unique("github"),
      hostPattern: "api.github.com, *.githubusercontent.com",
      credentials: [bearer, { role: "credential-substitution", secretKey: "API_USER", placeholderKey: "user", placeholderValue: "__API_USER__", substitutionSurfaces: ["query", "body"] }],
    });
    expect(Object.keys(service).sort()).toEqual(SERVICE_KEYS);
    const dev = project.environments.find((e) => e.slug === "dev")!;
    expect(service).toMatchObject({ folderId: dev.id, hostPattern: "api.github.com, *.githubusercontent.com", isEnabled: true, lastUsedAt: null });
    expect(service.createdAt).toBe(api.clock.now().toISOString());
    expect(service.credentials).toHaveLength(2);
    for (const credential of service.credentials) {
      expect(Object.keys(credential).sort()).toEqual(CREDENTIAL_KEYS);
      expect(credential.serviceId).toBe(service.id);
    }
    expect(service.credentials[0]).toMatchObject({
      role: "header-rewrite", secretKey: "GITHUB_TOKEN", headerName: "Authorization", headerPrefix: "Bearer", headerPurpose: null,
      placeholderKey: null, placeholderValue: null, substitutionSurfaces: [], dynamicSecretName: null, dynamicSecretField: null,
    });
    expect(service.credentials[1]).toMatchObject({
      role: "credential-substitution", secretKey: "API_USER", headerName: null, placeholderKey: "user", placeholderValue: "__API_USER__",
      substitutionSurfaces: ["query", "body"],
    });
    const got = await api.request("GET", `/api/v1/proxied-services/${service.id}`, { token: admin });
    expect(got.body).toEqual({ service });
    expect(JSON.stringify(got.body)).not.toContain("ghp_never_shown");
  });

  maybe("enforces name, hostPattern and credentials bounds on create", async () => {
    expectError(await create({ name: "" }), 422, "ValidationFailure");
    expect((await create({ name: "n" })).status).toBe(200);
    expect((await create({ name: "n".repeat(64) })).status).toBe(200);
    expectError(await create({ name: "m".repeat(65) }), 422);

    expectError(await create({ name: unique(), hostPattern: "" }), 422);
    expectError(await create({ name: unique(), hostPattern: "   " }), 422);
    // A URL is not a host pattern: a path or a scheme is malformed input.
    expect(JSON.stringify(expectError(await create({ name: unique(), hostPattern: "api.github.com/v1" }), 422, "ValidationFailure").message)).toMatch(/path/);
    expect(JSON.stringify(expectError(await create({ name: unique(), hostPattern: "https://api.github.com" }), 422).message)).toMatch(/scheme/);
    const trimmed = await create({ name: unique(), hostPattern: "  api.github.com, uploads.github.com\n" });
    expect(trimmed.body.service.hostPattern).toBe("api.github.com, uploads.github.com");
    expect((await create({ name: unique(), hostPattern: "a" })).status).toBe(200);
    expect((await create({ name: unique(), hostPattern: hostListOfLength(255) })).status).toBe(200);
    expectError(await create({ name: unique(), hostPattern: hostListOfLength(256) }), 422);

    expectError(await create({ name: unique(), credentials: [] }), 422);
    expectError(await create({ name: unique(), credentials: undefined }), 422);
    expectError(await create({ name: unique(), credentials: [{ ...bearer, role: "magic" }] }), 422);
  });

  maybe("refuses bad host patterns, credentials and value sources with 400", async () => {
    expectError(await create({ name: unique(), hostPattern: "a b" }), 400, "BadRequest");
    expectError(await create({ name: unique(), hostPattern: "*" }), 400);
    expect(expectError(await create({ name: unique(), credentials: [{ secretKey: "GITHUB_TOKEN" }] }), 400).message).toMatch(/credentials\[0\]/);
    expectError(await create({ name: unique(), credentials: [bearer, { ...bearer, headerName: "authorization" }] }), 400);
    expect(expectError(await create({ name: unique(), credentials: [{ ...bearer, secretKey: "NOPE" }] }), 400).message).toMatch(/NOPE/);
    // A secret of another folder is not the service's.
    expectError(await create({ name: unique(), credentials: [{ ...bearer, secretKey: "STRIPE_KEY" }] }), 400);
    expectError(await create({ name: unique(), credentials: [{ headerName: "X-Key", dynamicSecretName: "db", dynamicSecretField: "password" }] }), 400);
    const name = unique();
    await created({ name });
    expectError(await create({ name }), 400);
  });

  maybe("lives in a folder of a secret-manager project", async () => {
    const payments = await created({ name: unique(), secretPath: "/payments", credentials: [{ headerName: "X-Stripe", secretKey: "STRIPE_KEY" }] });
    expectError(await create({ name: unique(), secretPath: "/nowhere" }), 404, "NotFound");
    expectError(await create({ name: unique(), environment: "nope" }), 404);
    const pki = await createProject(api, admin, { projectName: "PKI", type: "cert-manager" });
    expectError(await create({ name: unique(), projectId: pki.id }), 400, "BadRequest");

    const listed = await api.request("GET", `/api/v1/proxied-services?${new URLSearchParams({ ...where(), secretPath: "/payments" })}`, { token: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.services.map((s: { id: string }) => s.id)).toEqual([payments.id]);
    const root = await api.request("GET", `/api/v1/proxied-services?${new URLSearchParams(where())}`, { token: admin });
    expect(root.body.services.length).toBeGreaterThan(1);
    expect(root.body.services.map((s: { id: string }) => s.id)).not.toContain(payments.id);
    expectError(await api.request("GET", `/api/v1/proxied-services?environment=dev`, { token: admin }), 422);
  });

  maybe("keeps credentials when PATCH omits them and replaces them whole when given", async () => {
    const service = await created({ name: unique(), credentials: [bearer, { headerName: "X-User", secretKey: "API_USER" }] });
    api.clock.advance(1000);
    const renamed = await patch(service.id, { name: "renamed-github", hostPattern: "api.github.com:443", isEnabled: false });
    expect(renamed.status).toBe(200);
    expect(renamed.body.service).toMatchObject({ name: "renamed-github", hostPattern: "api.github.com:443", isEnabled: false });
    expect(renamed.body.service.credentials).toEqual(service.credentials);
    expect(renamed.body.service.updatedAt).not.toBe(service.updatedAt);

    const replaced = await patch(service.id, { credentials: [{ ...bearer, secretKey: "GITHUB_TOKEN_NEXT" }] });
    expect(replaced.status).toBe(200);
    expect(replaced.body.service.credentials).toHaveLength(1);
    expect(replaced.body.service.credentials[0]).toMatchObject({ secretKey: "GITHUB_TOKEN_NEXT", headerName: "Authorization" });
    expect(service.credentials.map((c: { id: string }) => c.id)).not.toContain(replaced.body.service.credentials[0].id);

    // A refused replacement changes nothing.
    expectError(await patch(service.id, { name: "half-applied", credentials: [bearer, { ...bearer, secretKey: "MISSING" }] }), 400);
    const after = await api.request("GET", `/api/v1/proxied-services/${service.id}`, { token: admin });
    expect(after.body.service).toEqual(replaced.body.service);
  });

  maybe("enforces SPEC's PATCH bounds", async () => {
    const service = await created({ name: unique() });
    expectError(await patch(service.id, { name: "" }), 422);
    expect((await patch(service.id, { name: "p".repeat(64) })).status).toBe(200);
    expectError(await patch(service.id, { name: "p".repeat(65) }), 422);
    expectError(await patch(service.id, { hostPattern: "" }), 422);
    expect((await patch(service.id, { hostPattern: "a" })).body.service.hostPattern).toBe("a");
    expect((await patch(service.id, { hostPattern: hostListOfLength(255) })).status).toBe(200);
    expectError(await patch(service.id, { hostPattern: hostListOfLength(256) }), 422);
    expectError(await patch(service.id, { hostPattern: "api.github.com/v3" }), 422, "ValidationFailure");
    expectError(await patch(service.id, { hostPattern: "*" }), 400, "BadRequest");
    expectError(await patch(service.id, { credentials: [] }), 422);
    expectError(await patch(service.id, { isEnabled: "yes" }), 422);
  });

  maybe("deletes a service", async () => {
    const service = await created({ name: unique() });
    const deleted = await api.request("DELETE", `/api/v1/proxied-services/${service.id}`, { token: admin });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ service });
    expectError(await api.request("GET", `/api/v1/proxied-services/${service.id}`, { token: admin }), 404);
    expectError(await api.request("DELETE", `/api/v1/proxied-services/${service.id}`, { token: admin }), 404);
  });

  maybe("checks the proxied-services permission and hides other organizations' services", async () => {
    const service = await created({ name: unique() });
    const dev = await createUser(api, admin, world.admin.orgId, "dev@acme.test");
    const viewer = await createUser(api, admin, world.admin.orgId, "viewer@acme.test");
    const add = (username: string, role: string) =>
      api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: admin, body: { usernames: [username], roleSlugs: [role] } });
    expect((await add(dev.email, "member")).status).toBe(200);
    expect((await add(viewer.email, "viewer")).status).toBe(200);

    expectError(await create({ name: unique() }, dev.token), 403, "PermissionDenied");
    expectError(await api.request("GET", `/api/v1/proxied-services/${service.id}`, { token: dev.token }), 403);
    expect((await api.request("GET", `/api/v1/proxied-services/${service.id}`, { token: viewer.token })).status).toBe(200);
    expectError(await create({ name: unique() }, viewer.token), 403);
    expectError(await api.request("DELETE", `/api/v1/proxied-services/${service.id}`, { token: viewer.token }), 403);

    const outsider = await api.request("POST", "/api/v2/organizations", { token: dev.token, body: { name: "Elsewhere" } });
    expect(outsider.status).toBe(200);
    const stranger = await createUser(api, dev.token, outsider.body.organization.id, "stranger@elsewhere.test");
    expectError(await api.request("GET", `/api/v1/proxied-services/${service.id}`, { token: stranger.token }), 404);
    expectError(await api.request("PATCH", `/api/v1/proxied-services/${service.id}`, { token: stranger.token, body: { name: "x" } }), 404);
  });

  maybe("asks for readValue on every credential's secret and honours path conditions", async () => {
    const role = (slug: string, permissions: unknown[]) =>
      api.request("POST", `/api/v1/projects/${project.id}/roles`, { token: admin, body: { slug, name: slug, permissions } });
    expect((await role("svc-no-values", [{ subject: "proxied-services", action: ["read", "create", "edit", "delete"] }, { subject: "secrets", action: ["describeSecret"] }])).status).toBe(200);
    expect(
      (await role("svc-payments", [
        { subject: "proxied-services", action: ["read", "create"], conditions: { environment: "dev", secretPath: { $glob: "/payments" } } },
        { subject: "secrets", action: ["read"] },
      ])).status,
    ).toBe(200);
    const blind = await createUser(api, admin, world.admin.orgId, "blind@acme.test");
    const scoped = await createUser(api, admin, world.admin.orgId, "scoped@acme.test");
    const add = (username: string, roleSlug: string) =>
      api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: admin, body: { usernames: [username], roleSlugs: [roleSlug] } });
    expect((await add(blind.email, "svc-no-values")).status).toBe(200);
    expect((await add(scoped.email, "svc-payments")).status).toBe(200);

    expect(expectError(await create({ name: unique() }, blind.token), 403).message).toMatch(/readValue/);
    const stripe = { secretPath: "/payments", credentials: [{ headerName: "X-Stripe", secretKey: "STRIPE_KEY" }] };
    expectError(await create({ name: unique() }, scoped.token), 403);
    expect((await create({ name: unique(), ...stripe }, scoped.token)).status).toBe(200);
  });
});
