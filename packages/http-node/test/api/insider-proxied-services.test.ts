import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enrolledProxy } from "../../src/testing/agent-fixtures.js";
import { backendAvailable, backends, bootstrap, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Issue 15, principle 5: a credential is as strong as reading it. A user with proxied-services
 * rights but no `readValue` pointed an admin's service at his own host, and the agent proxy handed
 * him the production value. Every change to where a credential goes — host pattern, enabling,
 * credentials, a bundle's services or grantees — now needs `readValue` on every secret they use;
 * wildcards over public suffixes are refused.
 */

const PROD_VALUE = "ghp_production_value_never_for_mallory";
const OPEN_VALUE = "open_value_mallory_may_read";
const SERVICES = "/api/v1/proxied-services";
const BUNDLES = "/api/v1/agent-vault/access-bundles";

describe.each(backends)("where credentials go, on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let admin: string;
  let available = true;
  let projectId: string;
  let mallory: Awaited<ReturnType<typeof createUser>>;
  let proxy: { accessToken: string };
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
    projectId = (await createProject(api, admin, { projectName: "Agents" })).id;
    const tag = await ok("POST", `/api/v1/workspace/${projectId}/tags`, { slug: "prod", name: "prod", color: "#ff0000" });
    const put = (key: string, value: string, tagIds: string[] = []) =>
      ok("POST", `/api/v4/secrets/${key}`, { projectId, environment: "dev", secretPath: "/", secretValue: value, tagIds });
    await put("PROD_TOKEN", PROD_VALUE, [tag.workspaceTag.id]);
    await put("OPEN_TOKEN", OPEN_VALUE);
    await put("SPARE_TOKEN", "spare_value");

    // Mallory manages proxied services, reads every value but those tagged prod.
    await ok("POST", `/api/v1/projects/${projectId}/roles`, {
      slug: "service-keeper",
      name: "Service keeper",
      permissions: [
        { subject: "proxied-services", action: ["read", "create", "edit", "delete"] },
        { subject: "secrets", action: ["read"] },
        { subject: "secrets", action: ["readValue"], conditions: { secretTags: { $in: ["prod"] } }, inverted: true },
      ],
    });
    mallory = await createUser(api, admin, world.admin.orgId, "mallory@acme.test");
    await ok("POST", `/api/v2/workspace/${projectId}/memberships`, { usernames: [mallory.email], roleSlugs: ["service-keeper"] });
    proxy = await enrolledProxy(api, admin, { name: "edge" });
  });
  afterAll(async () => {
    if (available) await api.close();
  });
  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  /** The admin's service of PROD_TOKEN, in a bundle granted to Mallory's agent (brokered to GitHub only, by design). */
  async function adminService(options: { isEnabled?: boolean; secretKey?: string } = {}) {
    const { service } = await ok("POST", SERVICES, {
      projectId,
      environment: "dev",
      secretPath: "/",
      name: `github-${++seq}`,
      hostPattern: `api${seq}.github.com`,
      isEnabled: options.isEnabled ?? true,
      credentials: [{ headerName: "Authorization", headerPrefix: "Bearer", secretKey: options.secretKey ?? "PROD_TOKEN" }],
    });
    const { bundle } = await ok("POST", BUNDLES, { projectId, name: `ops-${seq}`, serviceIds: [service.id], grants: [{ type: "user", id: mallory.userId }] });
    return { service, bundle };
  }

  /** What the agent proxy is told to do for Mallory's session on `bundleId` when her agent calls `host`. */
  async function decisionFor(bundleId: string, host: string) {
    const session = await ok("POST", "/api/v1/agent-vault/sessions", { bundleId }, mallory.token);
    const res = await api.request("POST", "/api/v1/agent-vault/proxy/resolve", { token: proxy.accessToken, body: { sessionToken: session.token, host, port: 443, tls: true } });
    expect(res.status).toBe(200);
    return res.body.decision;
  }

  const patch = (id: string, body: Record<string, unknown>) => api.request("PATCH", `${SERVICES}/${id}`, { token: mallory.token, body });
  const stored = async (id: string) => (await ok("GET", `${SERVICES}/${id}`)).service;

  maybe("pointing an admin's service at another host needs readValue on its secret", async () => {
    const { service, bundle } = await adminService();
    for (const hostPattern of ["mallory.example.net", `api${seq}.github.com, mallory.example.net`, "*.mallory.example.net"]) {
      const res = await patch(service.id, { hostPattern });
      expect(expectError(res, 403, "PermissionDenied").message).toMatch(/PROD_TOKEN/);
    }
    expect((await stored(service.id)).hostPattern).toBe(service.hostPattern);
    // The real proxy's resolve still sends the value only where the admin said.
    expect(await decisionFor(bundle.id, "mallory.example.net")).toEqual({ action: "passthrough", reason: "no-matching-service" });
    const brokered = await decisionFor(bundle.id, service.hostPattern);
    expect(brokered.action).toBe("broker");
    expect(brokered.credentials[0].value).toBe(PROD_VALUE);
    // What does not move the credential stays Mallory's to change.
    expect((await patch(service.id, { name: `renamed-${seq}` })).status).toBe(200);
    expect((await patch(service.id, { hostPattern: service.hostPattern })).status).toBe(200);
  });

  maybe("so does enabling a service the admin disabled, or replacing its credentials", async () => {
    const { service } = await adminService({ isEnabled: false });
    expectError(await patch(service.id, { isEnabled: true }), 403, "PermissionDenied");
    expect((await stored(service.id)).isEnabled).toBe(false);
    expectError(
      await patch(service.id, { hostPattern: "mallory.example.net", credentials: [{ headerName: "X-Token", secretKey: "PROD_TOKEN" }] }),
      403,
      "PermissionDenied",
    );
    const kept = await stored(service.id);
    expect(kept.credentials.map((c: { headerName: string }) => c.headerName)).toEqual(["Authorization"]);
  });

  maybe("a credential whose secret is gone is checked by its name", async () => {
    const { service } = await adminService({ secretKey: "SPARE_TOKEN" });
    await ok("DELETE", "/api/v4/secrets/SPARE_TOKEN", { projectId, environment: "dev", secretPath: "/" });
    // Mallory may read untagged values: the name alone does not stop her.
    expect((await patch(service.id, { hostPattern: "spare.mallory.example.net" })).status).toBe(200);
    // A reader denied by name is stopped before the secret even exists again.
    await ok("POST", `/api/v1/projects/${projectId}/roles`, {
      slug: `no-spare-${++seq}`,
      name: "no spare",
      permissions: [
        { subject: "proxied-services", action: ["read", "edit"] },
        { subject: "secrets", action: ["read"] },
        { subject: "secrets", action: ["readValue"], conditions: { secretName: "SPARE_TOKEN" }, inverted: true },
      ],
    });
    const eve = await createUser(api, admin, world.admin.orgId, `eve-${seq}@acme.test`);
    await ok("POST", `/api/v2/workspace/${projectId}/memberships`, { usernames: [eve.email], roleSlugs: [`no-spare-${seq}`] });
    expectError(await api.request("PATCH", `${SERVICES}/${service.id}`, { token: eve.token, body: { hostPattern: "eve.example.net" } }), 403, "PermissionDenied");
  });

  maybe("a service of values Mallory may read is hers to point anywhere", async () => {
    const { service } = await ok("POST", SERVICES, {
      projectId, environment: "dev", secretPath: "/", name: `open-${++seq}`, hostPattern: "api.open.example.com",
      credentials: [{ headerName: "X-Token", secretKey: "OPEN_TOKEN" }],
    }, mallory.token);
    expect((await patch(service.id, { hostPattern: "mallory.example.net", isEnabled: false })).status).toBe(200);
  });

  maybe("a bundle's services and grantees are chosen only with readValue on what they carry", async () => {
    const { service, bundle } = await adminService();
    const accomplice = await createUser(api, admin, world.admin.orgId, `accomplice-${seq}@acme.test`);
    const update = (body: Record<string, unknown>) => api.request("PATCH", `${BUNDLES}/${bundle.id}`, { token: mallory.token, body });
    expectError(await update({ grants: [{ type: "user", id: mallory.userId }, { type: "user", id: accomplice.userId }] }), 403, "PermissionDenied");
    expectError(await update({ grants: [{ type: "user", id: accomplice.userId }] }), 403, "PermissionDenied");
    const { service: open } = await ok("POST", SERVICES, {
      projectId, environment: "dev", secretPath: "/", name: `open-${++seq}`, hostPattern: `open${seq}.example.com`,
      credentials: [{ headerName: "X-Token", secretKey: "OPEN_TOKEN" }],
    });
    expectError(await update({ serviceIds: [service.id, open.id] }), 403, "PermissionDenied");
    const after = (await ok("GET", `${BUNDLES}/${bundle.id}`)).bundle;
    expect(after).toMatchObject({ serviceIds: [service.id], grants: [{ type: "user", id: mallory.userId }] });
    // Neither may she make her own bundle of it.
    const own = await api.request("POST", BUNDLES, { token: mallory.token, body: { projectId, name: `mine-${seq}`, serviceIds: [service.id], grants: [{ type: "user", id: accomplice.userId }] } });
    expectError(own, 403, "PermissionDenied");
    // Renaming the bundle moves nothing; a bundle of values she may read is hers to share.
    expect((await update({ name: `renamed-${seq}`, grants: [{ type: "user", id: mallory.userId }] })).status).toBe(200);
    const shared = await api.request("POST", BUNDLES, { token: mallory.token, body: { projectId, name: `shared-${seq}`, serviceIds: [open.id], grants: [{ type: "user", id: accomplice.userId }] } });
    expect(shared.status).toBe(200);
  });

  maybe("refuses wildcards over public suffixes, keeps private-section and internal ones", async () => {
    const create = (hostPattern: string) =>
      api.request("POST", SERVICES, {
        token: admin,
        body: { projectId, environment: "dev", secretPath: "/", name: `wild-${++seq}`, hostPattern, credentials: [{ headerName: "X-Token", secretKey: "OPEN_TOKEN" }] },
      });
    for (const hostPattern of ["*.com", "*.co.uk", "api.example.com, *.io", "*.COM."]) {
      expect(expectError(await create(hostPattern), 400).message).toMatch(/public suffix/);
    }
    for (const hostPattern of ["*.github.io", "*.internal", "*.corp", "*.example.co.uk"]) expect((await create(hostPattern)).status).toBe(200);
    const { service } = await adminService();
    expectError(await api.request("PATCH", `${SERVICES}/${service.id}`, { token: admin, body: { hostPattern: "*.net" } }), 400);
    const proxyWide = await api.request("POST", "/api/v1/agent-vault/proxies", { token: admin, body: { name: "wide", trafficPolicy: "bundle-hosts", allowedHosts: "*.org" } });
    expectError(proxyWide, 400);
  });
});
