import { createHash } from "node:crypto";
import { applyCredentials } from "@strongroom/core/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enrolledProxy, storedAgentRows } from "../../src/testing/agent-fixtures.js";
import {
  backendAvailable,
  backends,
  bootstrap,
  createIdentity,
  createProject,
  createUser,
  expectError,
  startApi,
  type ApiResponse,
  type TestApi,
  type World,
} from "../../src/testing/harness.js";

const HOUR = 60 * 60 * 1000;
const GITHUB_VALUE = "ghp_brokered_value_0001";
const CORP_USER = "corp-robot";
const CORP_PASS = "corp-pass-value-0002";
const BUNDLE_KEYS = ["id", "projectId", "name", "description", "serviceIds", "grants", "createdAt", "updatedAt"].sort();

describe.each(backends)("access bundles, agent sessions and traffic resolution on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let admin: string;
  let project: { id: string };
  let bot: { identityId: string; token: string };
  let user: { userId: string; token: string; email: string };
  let services: Record<"github" | "corp" | "stripe", { id: string }>;
  let anyHost: { id: string; accessToken: string };
  let bundleHosts: { id: string; accessToken: string };
  let bundleId: string;
  let available = true;
  /**
   * Every answer, by the kind of call: `issue` answers show what they create (a session token, a
   * secret written through the secrets API), `resolve` answers carry values; nothing else may.
   */
  const answers: { kind: "issue" | "resolve" | "other"; body: unknown }[] = [];

  const call = async (method: string, path: string, token: string | undefined, body?: unknown, kind: "issue" | "resolve" | "other" = "other") => {
    const res = await api.request(method, path, { token, body });
    answers.push({ kind, body: res.body });
    return res;
  };
  const ok = async (res: Promise<ApiResponse>) => {
    const done = await res;
    if (done.status !== 200) throw new Error(`${done.status}: ${JSON.stringify(done.body)}`);
    return done.body;
  };

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    admin = world.admin.token;
    project = await createProject(api, admin, { projectName: "Agent Traffic" });
    for (const [key, value] of [["GITHUB_TOKEN", GITHUB_VALUE], ["CORP_USER", CORP_USER], ["CORP_PASS", CORP_PASS], ["STRIPE_KEY", "sk_unbundled_0003"]]) {
      await ok(call("POST", `/api/v4/secrets/${key}`, admin, { projectId: project.id, environment: "dev", secretValue: value }, "issue"));
    }
    const service = async (name: string, hostPattern: string, credentials: unknown[]) =>
      (await ok(call("POST", "/api/v1/proxied-services", admin, { projectId: project.id, environment: "dev", secretPath: "/", name, hostPattern, credentials }))).service;
    services = {
      github: await service("github", "api.github.com", [{ headerName: "Authorization", headerPrefix: "Bearer", secretKey: "GITHUB_TOKEN" }]),
      corp: await service("corp", "*.corp.example:8443", [
        { headerPurpose: "username", secretKey: "CORP_USER" },
        { headerPurpose: "password", secretKey: "CORP_PASS" },
      ]),
      stripe: await service("stripe", "api.stripe.com", [{ headerName: "X-Stripe-Key", secretKey: "STRIPE_KEY" }]),
    };
    bot = await createIdentity(api, admin, world.admin.orgId, "agent-bot");
    user = await createUser(api, admin, world.admin.orgId, "agent-user@acme.test");
    const bundle = await ok(
      call("POST", "/api/v1/agent-vault/access-bundles", admin, {
        projectId: project.id,
        name: "coding-agent",
        serviceIds: [services.github.id, services.corp.id],
        grants: [{ type: "identity", id: bot.identityId }],
      }),
    );
    bundleId = bundle.bundle.id;
    anyHost = await enrolledProxy(api, admin, { name: "any" });
    bundleHosts = await enrolledProxy(api, admin, { name: "strict", trafficPolicy: "bundle-hosts", allowedHosts: "status.example.com" });
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));
  const openSession = (token: string, body: Record<string, unknown> = {}) => call("POST", "/api/v1/agent-vault/sessions", token, { bundleId, ...body }, "issue");
  const resolve = (proxyToken: string, sessionToken: string, host: string, port = 443, tls = true) =>
    call("POST", "/api/v1/agent-vault/proxy/resolve", proxyToken, { sessionToken, host, port, tls }, "resolve");
  const decision = async (proxyToken: string, sessionToken: string, host: string, port = 443, tls = true) => {
    const res = await resolve(proxyToken, sessionToken, host, port, tls);
    expect(res.status).toBe(200);
    return res.body.decision;
  };

  maybe("creates, lists, reads, updates and deletes access bundles", async () => {
    const bundles = "/api/v1/agent-vault/access-bundles";
    const created = await call("POST", bundles, admin, { projectId: project.id, name: "temp", serviceIds: [services.stripe.id, services.stripe.id] });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body.bundle).sort()).toEqual(BUNDLE_KEYS);
    expect(created.body.bundle).toMatchObject({ projectId: project.id, name: "temp", description: "", serviceIds: [services.stripe.id], grants: [] });
    const id = created.body.bundle.id;

    expectError(await call("POST", bundles, admin, { projectId: project.id, name: "temp" }), 400);
    expectError(await call("POST", bundles, admin, { projectId: project.id, name: "" }), 422);
    expectError(await call("POST", bundles, admin, { projectId: project.id, name: "b".repeat(65) }), 422);
    expectError(await call("POST", bundles, admin, { projectId: project.id, name: "ghost", serviceIds: ["00000000-0000-4000-8000-000000000000"] }), 400);
    expectError(await call("POST", bundles, admin, { projectId: project.id, name: "ghost", grants: [{ type: "user", id: "nobody" }] }), 400);
    expectError(await call("POST", bundles, user.token, { projectId: project.id, name: "mine", serviceIds: [services.github.id] }), 403);

    const updated = await call("PATCH", `${bundles}/${id}`, admin, { description: "shared", grants: [{ type: "user", id: user.userId }] });
    expect(updated.body.bundle).toMatchObject({ description: "shared", serviceIds: [services.stripe.id], grants: [{ type: "user", id: user.userId }] });

    // A grantee sees the bundles granted to it, and only those, without any project role.
    const asUser = await call("GET", `${bundles}?projectId=${project.id}`, user.token);
    expect(asUser.body.bundles.map((b: { id: string }) => b.id)).toEqual([id]);
    expect((await call("GET", `${bundles}/${id}`, user.token)).status).toBe(200);
    expectError(await call("GET", `${bundles}/${bundleId}`, user.token), 403);
    const asAdmin = await call("GET", `${bundles}?projectId=${project.id}`, admin);
    expect(asAdmin.body.bundles.map((b: { id: string }) => b.id).sort()).toEqual([bundleId, id].sort());

    expect((await call("DELETE", `${bundles}/${id}`, admin)).body.bundle.id).toBe(id);
    expectError(await call("GET", `${bundles}/${id}`, admin), 404);
  });

  maybe("opens sessions only for grantees, with a hashed agv_ token and a bounded TTL", async () => {
    const res = await openSession(bot.token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["session", "token"]);
    expect(Object.keys(res.body.session).sort()).toEqual(["bundleId", "expiresAt", "id"]);
    expect(res.body.token).toMatch(/^agv_[A-Za-z0-9_-]{43}$/);
    expect(res.body.session).toMatchObject({ bundleId, expiresAt: new Date(api.clock.now().getTime() + HOUR).toISOString() });

    const day = await openSession(bot.token, { ttl: 86_400 });
    expect(day.body.session.expiresAt).toBe(new Date(api.clock.now().getTime() + 24 * HOUR).toISOString());
    expect((await openSession(bot.token, { ttl: "8h" })).body.session.expiresAt).toBe(new Date(api.clock.now().getTime() + 8 * HOUR).toISOString());
    expectError(await openSession(bot.token, { ttl: 86_401 }), 422);
    expectError(await openSession(bot.token, { ttl: 59 }), 422);
    expectError(await openSession(bot.token, { ttl: "2d" }), 422);

    expectError(await openSession(user.token), 403, "PermissionDenied");
    expectError(await openSession(admin), 403);
    expectError(await call("POST", "/api/v1/agent-vault/sessions", bot.token, { bundleId: "00000000-0000-4000-8000-000000000000" }), 404);
    expectError(await openSession(bot.token, { proxyId: "00000000-0000-4000-8000-000000000000" }), 404);
    expectError(await openSession(anyHost.accessToken), 401);
  });

  maybe("serves a proxy its sessions (hashes only), bundles and enabled services without values", async () => {
    const { body } = await openSession(bot.token);
    const state = await call("GET", "/api/v1/agent-vault/proxy/config", anyHost.accessToken);
    expect(state.status).toBe(200);
    expect(state.body.config).toEqual({ proxyId: anyHost.id, name: "any", trafficPolicy: "any-host", allowedHosts: null, pollInterval: 60 });
    const listed = state.body.sessions.find((s: { id: string }) => s.id === body.session.id);
    expect(listed).toEqual({ ...body.session, tokenHash: createHash("sha256").update(body.token).digest("hex") });
    expect(state.body.bundles).toEqual([{ id: bundleId, name: "coding-agent", serviceIds: [services.github.id, services.corp.id] }]);
    expect(state.body.services.map((s: { id: string }) => s.id)).toEqual([services.github.id, services.corp.id]);
    expect(state.body.services[0].credentials[0]).toMatchObject({ headerName: "Authorization", secretKey: "GITHUB_TOKEN" });
    const text = JSON.stringify(state.body);
    for (const secret of [body.token, GITHUB_VALUE, CORP_PASS]) expect(text).not.toContain(secret);
  });

  maybe("brokers with the real secret value, passes through the rest, and records lastUsedAt", async () => {
    const { body } = await openSession(bot.token);
    api.clock.advance(5000);
    const broker = await decision(anyHost.accessToken, body.token, "API.GitHub.com.");
    expect(broker).toMatchObject({ action: "broker", reason: "service-match", service: { id: services.github.id, name: "github", hostPattern: "api.github.com" } });
    expect(broker.credentials).toHaveLength(1);
    expect(broker.credentials[0].value).toBe(GITHUB_VALUE);
    expect(broker.credentials[0].credential).toMatchObject({ role: "header-rewrite", headerName: "Authorization", headerPrefix: "Bearer" });
    const injected = applyCredentials({ headers: { accept: "application/json" }, path: "/user", query: "", body: "", contentType: null }, broker.credentials);
    expect(injected.headers.Authorization).toBe(`Bearer ${GITHUB_VALUE}`);

    const service = await call("GET", `/api/v1/proxied-services/${services.github.id}`, admin);
    expect(service.body.service.lastUsedAt).toBe(api.clock.now().toISOString());

    const basic = await decision(anyHost.accessToken, body.token, "git.corp.example", 8443);
    expect(basic.action).toBe("broker");
    expect(basic.credentials.map((c: { value: string }) => c.value)).toEqual([CORP_USER, CORP_PASS]);

    expect(await decision(anyHost.accessToken, body.token, "example.org")).toEqual({ action: "passthrough", reason: "no-matching-service" });
    // A service of the organization that the session's bundle does not grant lends nothing.
    expect(await decision(anyHost.accessToken, body.token, "api.stripe.com")).toEqual({ action: "passthrough", reason: "no-matching-service" });
    expect(await decision(anyHost.accessToken, body.token, "api.github.com", 80, false)).toEqual({ action: "passthrough", reason: "tls-required" });
    expect((await call("GET", `/api/v1/proxied-services/${services.stripe.id}`, admin)).body.service.lastUsedAt).toBeNull();
  });

  maybe("denies hosts outside bundle-hosts with a 403 decision naming the host", async () => {
    const { body } = await openSession(bot.token);
    const denied = await decision(bundleHosts.accessToken, body.token, "example.org");
    expect(denied).toEqual({ action: "deny", status: 403, reason: "host-not-allowed", message: expect.stringContaining("example.org:443") });
    expect(await decision(bundleHosts.accessToken, body.token, "status.example.com")).toEqual({ action: "passthrough", reason: "allowed-host" });
    expect((await decision(bundleHosts.accessToken, body.token, "api.github.com")).action).toBe("broker");
    expect((await decision(bundleHosts.accessToken, body.token, "api.github.com", 8443)).action).toBe("deny");
    expect((await decision(bundleHosts.accessToken, body.token, "api.stripe.com")).status).toBe(403);
    expect((await decision(bundleHosts.accessToken, body.token, "not a host")).reason).toBe("invalid-destination");
  });

  maybe("honours a session only on its own proxy, until it is revoked or expires", async () => {
    const bound = (await openSession(bot.token, { proxyId: anyHost.id })).body;
    expect((await decision(anyHost.accessToken, bound.token, "api.github.com")).action).toBe("broker");
    expectError(await resolve(bundleHosts.accessToken, bound.token, "api.github.com"), 404, "NotFound");
    const strictState = await call("GET", "/api/v1/agent-vault/proxy/config", bundleHosts.accessToken);
    expect(strictState.body.sessions.map((s: { id: string }) => s.id)).not.toContain(bound.session.id);

    expectError(await resolve(anyHost.accessToken, `agv_${"x".repeat(43)}`, "api.github.com"), 404);
    expectError(await resolve(admin, bound.token, "api.github.com"), 401);

    expectError(await call("DELETE", `/api/v1/agent-vault/sessions/${bound.session.id}`, user.token), 404);
    const revoked = await call("DELETE", `/api/v1/agent-vault/sessions/${bound.session.id}`, bot.token);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ session: bound.session });
    expectError(await resolve(anyHost.accessToken, bound.token, "api.github.com"), 404);
    const state = await call("GET", "/api/v1/agent-vault/proxy/config", anyHost.accessToken);
    expect(state.body.sessions.map((s: { id: string }) => s.id)).not.toContain(bound.session.id);

    const short = (await openSession(bot.token, { ttl: 60 })).body;
    api.clock.advance(59_000);
    expect((await decision(anyHost.accessToken, short.token, "api.github.com")).action).toBe("broker");
    api.clock.advance(1_000);
    expectError(await resolve(anyHost.accessToken, short.token, "api.github.com"), 404);

    // An organization admin may end anyone's session.
    const other = (await openSession(bot.token)).body;
    expect((await call("DELETE", `/api/v1/agent-vault/sessions/${other.session.id}`, admin)).status).toBe(200);
  });

  maybe("stops honouring sessions whose grant, service or secret went away", async () => {
    const session = (await openSession(bot.token)).body;
    const bundles = "/api/v1/agent-vault/access-bundles";

    await ok(call("PATCH", `/api/v1/proxied-services/${services.github.id}`, admin, { isEnabled: false }));
    expect(await decision(anyHost.accessToken, session.token, "api.github.com")).toEqual({ action: "passthrough", reason: "no-matching-service" });
    await ok(call("PATCH", `/api/v1/proxied-services/${services.github.id}`, admin, { isEnabled: true }));

    await ok(call("DELETE", "/api/v4/secrets/GITHUB_TOKEN", admin, { projectId: project.id, environment: "dev" }, "issue"));
    const missing = await decision(anyHost.accessToken, session.token, "api.github.com");
    expect(missing).toMatchObject({ action: "deny", status: 502, reason: "credential-unavailable" });
    expect(missing.message).not.toContain("GITHUB_TOKEN");
    await ok(call("POST", "/api/v4/secrets/GITHUB_TOKEN", admin, { projectId: project.id, environment: "dev", secretValue: GITHUB_VALUE }, "issue"));
    expect((await decision(anyHost.accessToken, session.token, "api.github.com")).action).toBe("broker");

    await ok(call("PATCH", `${bundles}/${bundleId}`, admin, { grants: [{ type: "user", id: user.userId }] }));
    expectError(await resolve(anyHost.accessToken, session.token, "api.github.com"), 404);
    await ok(call("PATCH", `${bundles}/${bundleId}`, admin, { grants: [{ type: "identity", id: bot.identityId }] }));
    expect((await decision(anyHost.accessToken, session.token, "api.github.com")).action).toBe("broker");
  });

  maybe("never returns a session token or secret value elsewhere, nor logs one", async () => {
    const session = (await openSession(bot.token)).body;
    await decision(anyHost.accessToken, session.token, "api.github.com");
    await call("GET", `/api/v1/agent-vault/access-bundles/${bundleId}`, admin);
    await call("GET", `/api/v1/proxied-services?projectId=${project.id}&environment=dev&secretPath=/`, admin);
    const secrets = [session.token, GITHUB_VALUE, CORP_PASS, anyHost.accessToken];
    const elsewhere = JSON.stringify(answers.filter((a) => a.kind === "other").map((a) => a.body));
    const stored = await storedAgentRows(api);
    for (const secret of secrets) {
      expect(elsewhere).not.toContain(secret);
      expect(api.logs.join("\n")).not.toContain(secret);
      expect(stored).not.toContain(secret);
    }
    expect(stored).toContain(createHash("sha256").update(session.token).digest("hex"));
  });
});
