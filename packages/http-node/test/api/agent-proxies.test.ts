import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { enrolledProxy, expectedFingerprint, hostListOfLength, registerProxy, selfSignedPem, storedAgentRows } from "../../src/testing/agent-fixtures.js";
import { backendAvailable, backends, bootstrap, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

const HOUR = 60 * 60 * 1000;
const ADMIN_VIEW_KEYS = [
  "id", "name", "heartbeat", "isHealthy", "rootCaFingerprint", "rootCaExpiresAt", "trafficPolicy", "allowedHosts", "pollInterval", "createdAt",
].sort();

describe.each(backends)("agent proxies API on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let admin: string;
  let available = true;

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
  const register = (body: Record<string, unknown>, token = admin) => api.request("POST", "/api/v1/agent-vault/proxies", { token, body });
  const enroll = (enrollmentToken: string, rootCaCertificate: string) =>
    api.request("POST", "/api/v1/agent-vault/proxy/enroll", { body: { enrollmentToken, rootCaCertificate } });
  const view = async (id: string) => {
    const res = await api.request("GET", `/api/v1/agent-vault/proxies/${id}`, { token: admin });
    expect(res.status).toBe(200);
    return res.body.proxy;
  };

  maybe("registers a proxy with SPEC's defaults, a strict admin view and a one-hour avp_ token", async () => {
    const res = await register({ name: "edge" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["expiresAt", "proxy", "token"]);
    expect(Object.keys(res.body.proxy).sort()).toEqual(ADMIN_VIEW_KEYS);
    expect(res.body.proxy).toMatchObject({
      name: "edge",
      heartbeat: null,
      isHealthy: false,
      rootCaFingerprint: null,
      rootCaExpiresAt: null,
      trafficPolicy: "any-host",
      allowedHosts: null,
      pollInterval: 60,
      createdAt: api.clock.now().toISOString(),
    });
    expect(res.body.token).toMatch(/^avp_[A-Za-z0-9_-]{43}$/);
    expect(res.body.expiresAt).toBe(new Date(api.clock.now().getTime() + HOUR).toISOString());
    expect(Object.keys(await view(res.body.proxy.id)).sort()).toEqual(ADMIN_VIEW_KEYS);
  });

  maybe("enforces SPEC's registration bounds on both sides", async () => {
    expectError(await register({ name: "" }), 422, "ValidationFailure");
    expect((await register({ name: "n" })).status).toBe(200);
    expect((await register({ name: "n".repeat(64) })).status).toBe(200);
    expectError(await register({ name: "n".repeat(65) }), 422);
    expectError(await register({}), 422);

    const allowed1024 = await register({ name: "a", trafficPolicy: "bundle-hosts", allowedHosts: hostListOfLength(1024) });
    expect(allowed1024.status).toBe(200);
    expect(allowed1024.body.proxy.allowedHosts).toHaveLength(1024);
    expectError(await register({ name: "a", allowedHosts: hostListOfLength(1025) }), 422);
    expect((await register({ name: "a", allowedHosts: null })).body.proxy.allowedHosts).toBeNull();

    expectError(await register({ name: "p", pollInterval: 9 }), 422);
    expect((await register({ name: "p", pollInterval: 10 })).body.proxy.pollInterval).toBe(10);
    expect((await register({ name: "p", pollInterval: 300 })).body.proxy.pollInterval).toBe(300);
    expectError(await register({ name: "p", pollInterval: 301 }), 422);
    expectError(await register({ name: "p", pollInterval: 60.5 }), 422);

    expectError(await register({ name: "t", trafficPolicy: "every-host" }), 422);
    expectError(await register({ name: "x", color: "blue" }), 422, "ValidationFailure");
  });

  maybe("refuses unparseable allowedHosts with 400 naming the item", async () => {
    const res = expectError(await register({ name: "bad", allowedHosts: "ok.example.com, x y.example.com" }), 400, "BadRequest");
    expect(res.message).toContain("x y.example.com");
    expect(JSON.stringify(expectError(await register({ name: "bad", allowedHosts: "ok.example.com, https://x.example.com" }), 422).message)).toContain("https://x.example.com");
    expectError(await register({ name: "bad", allowedHosts: "ok.example.com/admin" }), 422, "ValidationFailure");
    const tidy = await register({ name: "tidy", allowedHosts: " a.example.com , b.example.com " });
    expect(tidy.body.proxy.allowedHosts).toBe("a.example.com , b.example.com");
    expectError(await register({ name: "bad", allowedHosts: "*" }), 400);
  });

  maybe("lets only organization admins register and manage proxies", async () => {
    const member = await createUser(api, admin, world.admin.orgId, "member@acme.test");
    expectError(await register({ name: "nope" }, member.token), 403, "PermissionDenied");
    expectError(await api.request("POST", "/api/v1/agent-vault/proxies", { body: { name: "anon" } }), 401);
    const { id } = await registerProxy(api, admin);
    expectError(await api.request("GET", `/api/v1/agent-vault/proxies/${id}`, { token: member.token }), 403);

    const other = await api.request("POST", "/api/v2/organizations", { token: world.admin.userToken, body: { name: "Other Org" } });
    expect(other.status).toBe(200);
    // The first user now belongs to two organizations and must say which one.
    expectError(await register({ name: "which" }, world.admin.userToken), 400);
    const inOther = await api.request("POST", `/api/v1/agent-vault/proxies?organizationId=${other.body.organization.id}`, {
      token: world.admin.userToken,
      body: { name: "other-proxy" },
    });
    expect(inOther.status).toBe(200);
    // The bootstrap identity acts in the first organization only: the other one's proxy does not exist for it.
    expectError(await api.request("GET", `/api/v1/agent-vault/proxies/${inOther.body.proxy.id}`, { token: admin }), 404, "NotFound");
    const listed = await api.request("GET", "/api/v1/agent-vault/proxies", { token: admin });
    expect(listed.body.proxies.map((p: { id: string }) => p.id)).not.toContain(inOther.body.proxy.id);
  });

  maybe("lists, updates and deletes proxies", async () => {
    const { id } = await registerProxy(api, admin, { name: "managed" });
    const listed = await api.request("GET", "/api/v1/agent-vault/proxies", { token: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.proxies.map((p: { id: string }) => p.id)).toContain(id);
    for (const proxy of listed.body.proxies) expect(Object.keys(proxy).sort()).toEqual(ADMIN_VIEW_KEYS);

    const patch = (body: Record<string, unknown>) => api.request("PATCH", `/api/v1/agent-vault/proxies/${id}`, { token: admin, body });
    const updated = await patch({ name: "renamed", trafficPolicy: "bundle-hosts", allowedHosts: "status.example.com", pollInterval: 30 });
    expect(updated.status).toBe(200);
    expect(updated.body.proxy).toMatchObject({ id, name: "renamed", trafficPolicy: "bundle-hosts", allowedHosts: "status.example.com", pollInterval: 30 });
    expect((await patch({ allowedHosts: null })).body.proxy).toMatchObject({ allowedHosts: null, name: "renamed", pollInterval: 30 });
    expectError(await patch({ pollInterval: 301 }), 422);
    expectError(await patch({ name: "n".repeat(65) }), 422);
    expectError(await patch({ color: "blue" }), 422);
    expectError(await patch({ allowedHosts: "a b" }), 400);

    const deleted = await api.request("DELETE", `/api/v1/agent-vault/proxies/${id}`, { token: admin });
    expect(deleted.status).toBe(200);
    expect(deleted.body.proxy.id).toBe(id);
    expectError(await api.request("GET", `/api/v1/agent-vault/proxies/${id}`, { token: admin }), 404);
  });

  maybe("enrolls once with a valid CA and stores its fingerprint and expiry", async () => {
    const registered = await registerProxy(api, admin, { name: "enrolling", pollInterval: 20 });
    const ca = selfSignedPem(api.clock.now());
    const res = await enroll(registered.token, ca);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["accessToken", "config", "name", "proxyId"]);
    expect(res.body).toMatchObject({ proxyId: registered.id, name: "enrolling" });
    expect(res.body.config).toEqual({ proxyId: registered.id, name: "enrolling", trafficPolicy: "any-host", allowedHosts: null, pollInterval: 20 });
    const shown = await view(registered.id);
    expect(shown.rootCaFingerprint).toBe(expectedFingerprint(ca));
    expect(shown.rootCaFingerprint).toMatch(/^SHA256:([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(Date.parse(shown.rootCaExpiresAt)).toBeGreaterThan(api.clock.now().getTime());
    // Enrolling is the first check-in: healthy at once, not only after the first poll.
    expect(shown).toMatchObject({ heartbeat: api.clock.now().toISOString(), isHealthy: true });
    api.clock.advance(3 * 20_000);
    expect((await view(registered.id)).isHealthy).toBe(false);

    expectError(await enroll(registered.token, ca), 401, "UnauthorizedError");
  });

  maybe("refuses forged, expired and replaced enrollment tokens with 401", async () => {
    const ca = selfSignedPem(api.clock.now());
    expectError(await enroll(`avp_${"A".repeat(43)}`, ca), 401, "UnauthorizedError");
    expectError(await enroll("not-a-token", ca), 401);

    const late = await registerProxy(api, admin, { name: "late" });
    const early = await registerProxy(api, admin, { name: "early" });
    api.clock.advance(HOUR - 1000);
    expect((await enroll(early.token, ca)).status).toBe(200);
    api.clock.advance(1000);
    expectError(await enroll(late.token, ca), 401);

    const replaced = await registerProxy(api, admin, { name: "replaced" });
    const reissued = await api.request("POST", `/api/v1/agent-vault/proxies/${replaced.id}/enrollment-token`, { token: admin });
    expect(reissued.status).toBe(200);
    expect(reissued.body.token).toMatch(/^avp_/);
    expect(reissued.body.token).not.toBe(replaced.token);
    expect(reissued.body.expiresAt).toBe(new Date(api.clock.now().getTime() + HOUR).toISOString());
    expectError(await enroll(replaced.token, ca), 401);
    expect((await enroll(reissued.body.token, ca)).status).toBe(200);
  });

  maybe("refuses a non-CA, expired or unreadable PEM with 400 and leaves the token usable", async () => {
    const registered = await registerProxy(api, admin, { name: "picky" });
    const now = api.clock.now();
    const leaf = selfSignedPem(now, { isCA: false });
    const expired = selfSignedPem(now, { notBefore: new Date(now.getTime() - 10 * 24 * HOUR), notAfter: new Date(now.getTime() - HOUR) });
    const future = selfSignedPem(now, { notBefore: new Date(now.getTime() + 24 * HOUR) });
    expect(expectError(await enroll(registered.token, leaf), 400, "BadRequest").message).toMatch(/not a certificate authority/);
    expect(expectError(await enroll(registered.token, expired), 400).message).toMatch(/expired/);
    expectError(await enroll(registered.token, future), 400);
    expectError(await enroll(registered.token, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), 400);
    expectError(await enroll(registered.token, "hello"), 400);
    expectError(await enroll(registered.token, `${selfSignedPem(now)}${selfSignedPem(now)}`), 400);
    expect((await enroll(registered.token, selfSignedPem(now))).status).toBe(200);
  });

  maybe("lets exactly one of 20 concurrent enrollments with the same token win", async () => {
    const registered = await registerProxy(api, admin, { name: "raced" });
    const ca = selfSignedPem(api.clock.now());
    const results = await Promise.all(Array.from({ length: 20 }, () => enroll(registered.token, ca)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(19);
    const winner = results.find((r) => r.status === 200)!;
    const heartbeat = await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: winner.body.accessToken });
    expect(heartbeat.status).toBe(200);
  });

  maybe("records heartbeats and reports health against 3 × pollInterval", async () => {
    const proxy = await enrolledProxy(api, admin, { name: "beating", pollInterval: 10 });
    api.clock.advance(30_000);
    expect((await view(proxy.id)).isHealthy).toBe(false);
    const beat = await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: proxy.accessToken });
    expect(beat.status).toBe(200);
    expect(beat.body).toEqual({ config: { proxyId: proxy.id, name: "beating", trafficPolicy: "any-host", allowedHosts: null, pollInterval: 10 } });
    const beatAt = api.clock.now().toISOString();
    expect(await view(proxy.id)).toMatchObject({ heartbeat: beatAt, isHealthy: true });

    api.clock.advance(29_999);
    expect((await view(proxy.id)).isHealthy).toBe(true);
    api.clock.advance(1);
    expect(await view(proxy.id)).toMatchObject({ heartbeat: beatAt, isHealthy: false });

    // A longer poll interval, picked up by the next heartbeat, stretches the window.
    await api.request("PATCH", `/api/v1/agent-vault/proxies/${proxy.id}`, { token: admin, body: { pollInterval: 100 } });
    const again = await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: proxy.accessToken });
    expect(again.body.config.pollInterval).toBe(100);
    api.clock.advance(299_000);
    expect((await view(proxy.id)).isHealthy).toBe(true);
    api.clock.advance(1_000);
    expect((await view(proxy.id)).isHealthy).toBe(false);
  });

  maybe("accepts proxy tokens on the proxy endpoints only, and nothing else there", async () => {
    const proxy = await enrolledProxy(api, admin, { name: "scoped" });
    expect(proxy.accessToken).toMatch(/^srt_/);
    expectError(await api.request("GET", "/api/v1/agent-vault/proxies", { token: proxy.accessToken }), 401);
    expectError(await api.request("POST", "/api/v1/projects", { token: proxy.accessToken, body: { projectName: "x" } }), 401);
    expectError(await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: admin }), 401);
    expectError(await api.request("GET", "/api/v1/agent-vault/proxy/config", { token: world.admin.userToken }), 401);
    expectError(await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat"), 401);
    expect((await api.request("GET", "/api/v1/agent-vault/proxy/config", { token: proxy.accessToken })).status).toBe(200);
  });

  maybe("revokes a proxy: its token stops working until it enrolls again", async () => {
    const proxy = await enrolledProxy(api, admin, { name: "revoked" });
    await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: proxy.accessToken });
    const revoked = await api.request("POST", `/api/v1/agent-vault/proxies/${proxy.id}/revoke`, { token: admin });
    expect(revoked.status).toBe(200);
    expect(revoked.body.proxy).toMatchObject({ id: proxy.id, heartbeat: null, isHealthy: false, rootCaFingerprint: null, rootCaExpiresAt: null });
    expectError(await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: proxy.accessToken }), 401);

    const fresh = await api.request("POST", `/api/v1/agent-vault/proxies/${proxy.id}/enrollment-token`, { token: admin });
    const ca = selfSignedPem(api.clock.now());
    const again = await enroll(fresh.body.token, ca);
    expect(again.status).toBe(200);
    expect((await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: again.body.accessToken })).status).toBe(200);
    expectError(await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: proxy.accessToken }), 401);
    expect((await view(proxy.id)).rootCaFingerprint).toBe(expectedFingerprint(ca));

    // Deleting the proxy ends its token too.
    await api.request("DELETE", `/api/v1/agent-vault/proxies/${proxy.id}`, { token: admin });
    expectError(await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: again.body.accessToken }), 401);
  });

  maybe("never shows an enrollment or proxy token again, nor logs or stores one", async () => {
    const registered = await registerProxy(api, admin, { name: "quiet" });
    const enrolled = await enroll(registered.token, selfSignedPem(api.clock.now()));
    const later = [
      await api.request("GET", "/api/v1/agent-vault/proxies", { token: admin }),
      await api.request("GET", `/api/v1/agent-vault/proxies/${registered.id}`, { token: admin }),
      await api.request("PATCH", `/api/v1/agent-vault/proxies/${registered.id}`, { token: admin, body: { name: "still-quiet" } }),
      await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: enrolled.body.accessToken }),
      await api.request("GET", "/api/v1/agent-vault/proxy/config", { token: enrolled.body.accessToken }),
    ];
    const seen = JSON.stringify(later.map((r) => r.body));
    const logged = api.logs.join("\n");
    const stored = await storedAgentRows(api);
    for (const secret of [registered.token, enrolled.body.accessToken]) {
      expect(seen).not.toContain(secret);
      expect(logged).not.toContain(secret);
      expect(stored).not.toContain(secret);
      expect(stored).toContain(createHash("sha256").update(secret).digest("hex"));
    }
  });
});
