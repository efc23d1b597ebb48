import { afterAll, beforeAll, expect, it } from "vitest";
import { anonymous, type Actor } from "@strongroom/core";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { createRootCa } from "../../src/x509/issue.js";

/**
 * The agent vault's main flows on every store: a proxy enrolls, checks in and is revoked; an agent
 * session on a bundle brokers a service's credentials; the read-modify-writes (token reissue,
 * service positions) hold under concurrency; removing a folder takes its services out of bundles.
 */
forEachStore("the agent vault's flows", (store) => {
  let w: TestWorld;
  let bot: { actor: Actor; token: string; identityId: string };
  const at = () => ({ projectId: w.projectId, environment: "dev", secretPath: "/" });

  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open() });
    bot = await w.identityWith(["member"], "agent-bot");
    await w.sr.secrets.create(w.admin, { ...at(), secretName: "GITHUB_TOKEN", secretValue: "ghp_brokered" });
  });
  afterAll(() => w?.close());

  const bearer = (secretKey: string) => [{ headerName: "Authorization", headerPrefix: "Bearer", secretKey }];
  const codeOf = (attempt: Promise<unknown>) => attempt.then(() => "ok", (error: { code?: string }) => error.code ?? "?");
  const caPem = async () => (await createRootCa({ commonName: "Proxy CA", keyAlgorithm: "EC_prime256v1", ttlMs: 24 * 60 * 60 * 1000, now: w.clock.now() })).certificatePem;

  async function enrolledProxy(name: string) {
    const { token, proxy } = await w.sr.agentProxies.create(w.admin, { name });
    const enrolled = await w.sr.agentProxies.enroll(anonymous, { enrollmentToken: token, rootCaCertificate: await caPem() });
    return { id: proxy.id, accessToken: enrolled.accessToken, actor: await w.sr.authenticate(enrolled.accessToken) };
  }

  it("enrolls a proxy, records its check-ins and forgets them when it is revoked", async () => {
    const proxy = await enrolledProxy("edge");
    expect((await w.sr.agentProxies.heartbeat(proxy.actor, {})).config).toMatchObject({ proxyId: proxy.id, name: "edge" });
    expect((await w.sr.agentProxies.get(w.admin, { proxyId: proxy.id })).proxy).toMatchObject({ isHealthy: true, heartbeat: w.clock.now().toISOString() });

    const { proxy: revoked } = await w.sr.agentProxies.revoke(w.admin, { proxyId: proxy.id });
    expect(revoked).toMatchObject({ heartbeat: null, isHealthy: false, rootCaFingerprint: null });
    expect(await codeOf(w.sr.authenticate(proxy.accessToken))).toBe("UnauthorizedError");
  });

  it("leaves exactly one enrollment token after concurrent reissues", async () => {
    const { proxy } = await w.sr.agentProxies.create(w.admin, { name: "reissued" });
    const issued = await Promise.all([1, 2, 3].map(() => w.sr.agentProxies.issueEnrollmentToken(w.admin, { proxyId: proxy.id })));
    expect(await w.storage.tables.agentProxyEnrollmentTokens.count({ proxyId: proxy.id })).toBe(1);
    const outcomes = await Promise.all(
      issued.map(async ({ token }) => codeOf(w.sr.agentProxies.enroll(anonymous, { enrollmentToken: token, rootCaCertificate: await caPem() }))),
    );
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(1);
  });

  it("gives concurrently created services of an organization distinct positions", async () => {
    const create = (name: string) => w.sr.proxiedServices.create(w.admin, { ...at(), name, hostPattern: `${name}.example.com`, credentials: bearer("GITHUB_TOKEN") });
    const created = await Promise.all(["one", "two", "three", "four"].map(create));
    const rows = await w.storage.tables.proxiedServices.find({ id: { in: created.map((c) => c.service.id) } });
    expect(new Set(rows.map((r) => r.position)).size).toBe(4);
  });

  it("brokers a bundled service's credentials for a granted session, until the bundle goes", async () => {
    const { service } = await w.sr.proxiedServices.create(w.admin, {
      ...at(),
      name: "github",
      hostPattern: "api.github.com",
      credentials: bearer("GITHUB_TOKEN"),
    });
    const { bundle } = await w.sr.accessBundles.create(w.admin, {
      projectId: w.projectId,
      name: "coding-agent",
      serviceIds: [service.id],
      grants: [{ type: "identity", id: bot.identityId }],
    });
    const proxy = await enrolledProxy("broker");
    const { token: sessionToken } = await w.sr.agentSessions.create(bot.actor, { bundleId: bundle.id });

    const state = await w.sr.agentProxies.config(proxy.actor, {});
    expect(state.bundles).toEqual([{ id: bundle.id, name: "coding-agent", serviceIds: [service.id] }]);
    const { decision } = await w.sr.agentProxies.resolve(proxy.actor, { sessionToken, host: "api.github.com", port: 443, tls: true });
    expect(decision).toMatchObject({ action: "broker", service: { id: service.id }, credentials: [{ value: "ghp_brokered" }] });
    expect((await w.sr.proxiedServices.get(w.admin, { serviceId: service.id })).service.lastUsedAt).toBe(w.clock.now().toISOString());

    await w.sr.accessBundles.delete(w.admin, { bundleId: bundle.id });
    const after = w.sr.agentProxies.resolve(proxy.actor, { sessionToken, host: "api.github.com", port: 443, tls: true });
    expect(await codeOf(after)).toBe("NotFound");
  });

  it("trims host patterns and refuses a bundle holding two services that claim the same host", async () => {
    const make = (name: string, hostPattern: string) => w.sr.proxiedServices.create(w.admin, { ...at(), name, hostPattern, credentials: bearer("GITHUB_TOKEN") });
    const { service: github } = await make("github-api", "  api.github.com ,  uploads.github.com:443 ");
    expect(github.hostPattern).toBe("api.github.com ,  uploads.github.com:443");
    const { service: shouting } = await make("github-shouting", "API.GitHub.com.");
    const { service: wildcard } = await make("github-wildcard", "*.github.com");
    const { service: other } = await make("other-api", "api.other.test");

    const bundle = (name: string, serviceIds: string[]) => w.sr.accessBundles.create(w.admin, { projectId: w.projectId, name, serviceIds });
    // Same host once normalized (case, trailing dot) is a clash; a wildcard that overlaps an exact host is not (§7's precedence).
    expect(await codeOf(bundle("clash", [github.id, shouting.id]))).toBe("BadRequest");
    const { bundle: fine } = await bundle("overlap", [github.id, wildcard.id]);
    expect(await codeOf(w.sr.accessBundles.update(w.admin, { bundleId: fine.id, serviceIds: [github.id, wildcard.id, shouting.id] }))).toBe("BadRequest");
    expect((await w.sr.accessBundles.get(w.admin, { bundleId: fine.id })).bundle.serviceIds).toEqual([github.id, wildcard.id]);
    expect((await w.sr.accessBundles.update(w.admin, { bundleId: fine.id, serviceIds: [github.id, other.id] })).bundle.serviceIds).toEqual([github.id, other.id]);
  });

  it("takes the services of a removed folder out of their bundles", async () => {
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "payments" } as never);
    const payments = { ...at(), secretPath: "/payments" };
    await w.sr.secrets.create(w.admin, { ...payments, secretName: "STRIPE_KEY", secretValue: "sk_brokered" });
    const { service } = await w.sr.proxiedServices.create(w.admin, { ...payments, name: "stripe", hostPattern: "api.stripe.com", credentials: bearer("STRIPE_KEY") });
    const { bundle } = await w.sr.accessBundles.create(w.admin, { projectId: w.projectId, name: "payments", serviceIds: [service.id] });
    const folder = await w.storage.tables.secretFolders.findOne({ projectId: w.projectId, path: "/payments" });
    await w.sr.folders.delete(w.admin, { projectId: w.projectId, environment: "dev", folderIdOrName: folder!.id } as never);
    expect(await codeOf(w.sr.proxiedServices.get(w.admin, { serviceId: service.id }))).toBe("NotFound");
    expect((await w.sr.accessBundles.get(w.admin, { bundleId: bundle.id })).bundle.serviceIds).toEqual([]);
  });
});
