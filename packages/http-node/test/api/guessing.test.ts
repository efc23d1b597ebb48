import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends } from "../../src/testing/harness.js";
import { startDeployment, type ApiNode, type Deployment } from "./nodes.js";

/**
 * What universal auth stores, it enforces (trusted IPs, token use limits), and guessing is
 * bounded and atomic (password and client-secret lockouts), across nodes sharing one database:
 * on PostgreSQL two nodes with their own pools take the attempts, on SQLite one node.
 */
const MINUTE = 60_000;
const INSIDE = "10.1.2.3";
const OUTSIDE = "203.0.113.9";

describe.each(backends)("guessing and universal-auth limits on %s", (backend) => {
  let deployment: Deployment;
  let nodes: ApiNode[];
  let admin: { token: string; orgId: string };
  let available = true;
  let counter = 0;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    deployment = await startDeployment(backend, 2);
    nodes = deployment.nodes;
    const boot = await nodes[0].request("POST", "/api/v1/admin/bootstrap", {
      body: { email: "owner@acme.test", password: "correct horse battery", organization: "Acme" },
    });
    expect(boot.status).toBe(200);
    admin = { token: boot.body.identity.credentials.token, orgId: boot.body.organization.id };
  });
  afterAll(async () => {
    if (available) await deployment.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()), 60_000);
  /** Request i goes to node i mod n: concurrent attempts land on every node. */
  const node = (i: number) => nodes[i % nodes.length];

  /** A machine identity with universal auth configured by `ua`, and one client secret. */
  async function identity(ua: Record<string, unknown> = {}) {
    const created = await nodes[0].request("POST", "/api/v1/identities", { token: admin.token, body: { name: `bot-${++counter}`, organizationId: admin.orgId, role: "member" } });
    const identityId = created.body.identity.id as string;
    const attached = await nodes[0].request("POST", `/api/v1/auth/universal-auth/identities/${identityId}`, { token: admin.token, body: ua });
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
    const secret = await nodes[0].request("POST", `/api/v1/auth/universal-auth/identities/${identityId}/client-secrets`, { token: admin.token, body: {} });
    return { identityId, clientId: attached.body.identityUniversalAuth.clientId as string, clientSecret: secret.body.clientSecret as string };
  }

  const uaLogin = (n: ApiNode, clientId: string, clientSecret: string, from = INSIDE) =>
    n.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId, clientSecret }, from });
  /** A cheap authenticated read: the organization's identities are not needed, just a 200/401/403. */
  const useToken = (n: ApiNode, token: string, from = INSIDE) => n.request("GET", "/api/v1/projects", { token, from });

  const statuses = (responses: { status: number }[]) =>
    responses.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

  describe("trusted IPs and use limits (principle 9)", () => {
    maybe("clientSecretTrustedIps: a login from outside is 403, judges nothing and counts no failure", async () => {
      const bot = await identity({ clientSecretTrustedIps: [{ ipAddress: "10.0.0.0/8" }] });
      const outside = await uaLogin(nodes[0], bot.clientId, bot.clientSecret, OUTSIDE);
      expect(outside.status).toBe(403);
      // Wrong guesses from outside cannot lock the identity out.
      for (let i = 0; i < 5; i++) expect((await uaLogin(node(i), bot.clientId, "wrong", OUTSIDE)).status).toBe(403);
      const inside = await uaLogin(nodes[0], bot.clientId, bot.clientSecret, INSIDE);
      expect(inside.status).toBe(200);
      expect(inside.body.accessToken).toMatch(/^srt_/);
    });

    maybe("accessTokenTrustedIps: the token works only from the trusted addresses, on every node", async () => {
      const bot = await identity({ accessTokenTrustedIps: [{ ipAddress: "10.0.0.0/8" }, { ipAddress: "2001:db8::/32" }] });
      const { accessToken } = (await uaLogin(nodes[0], bot.clientId, bot.clientSecret, OUTSIDE)).body;
      for (const n of nodes) {
        expect((await useToken(n, accessToken, INSIDE)).status).toBe(200);
        expect((await useToken(n, accessToken, "2001:db8::7")).status).toBe(200);
        const refused = await useToken(n, accessToken, OUTSIDE);
        expect(refused.status).toBe(403);
        expect(refused.body.message).toMatch(/address/);
      }
    });

    maybe("trusted IP entries must be addresses or CIDR blocks (422)", async () => {
      const created = await nodes[0].request("POST", "/api/v1/identities", { token: admin.token, body: { name: `bad-ips-${++counter}`, organizationId: admin.orgId } });
      const res = await nodes[0].request("POST", `/api/v1/auth/universal-auth/identities/${created.body.identity.id}`, {
        token: admin.token,
        body: { accessTokenTrustedIps: [{ ipAddress: "everywhere" }] },
      });
      expect(res.status).toBe(422);
    });

    maybe("accessTokenNumUsesLimit 1: a one-use token works once", async () => {
      const bot = await identity({ accessTokenNumUsesLimit: 1 });
      const { accessToken } = (await uaLogin(nodes[0], bot.clientId, bot.clientSecret)).body;
      expect((await useToken(nodes[0], accessToken)).status).toBe(200);
      for (const n of nodes) expect((await useToken(n, accessToken)).status).toBe(401);
    });

    maybe("accessTokenNumUsesLimit 3: of 12 concurrent uses over every node exactly 3 succeed", async () => {
      const bot = await identity({ accessTokenNumUsesLimit: 3 });
      const { accessToken } = (await uaLogin(nodes[0], bot.clientId, bot.clientSecret)).body;
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => useToken(node(i), accessToken)));
      expect(statuses(results)).toEqual({ 200: 3, 401: 9 });
      expect((await useToken(nodes[0], accessToken)).status).toBe(401);
    });

    maybe("a token without a limit is not counted", async () => {
      const bot = await identity();
      const { accessToken } = (await uaLogin(nodes[0], bot.clientId, bot.clientSecret)).body;
      for (let i = 0; i < 6; i++) expect((await useToken(node(i), accessToken)).status).toBe(200);
    });
  });

  describe("lockouts (principle 10)", () => {
    maybe("universal auth: of 30 concurrent wrong guesses over every node exactly 3 are judged; then the right secret waits too", async () => {
      const bot = await identity();
      const guesses = await Promise.all(Array.from({ length: 30 }, (_, i) => uaLogin(node(i), bot.clientId, `wrong-${i}`)));
      expect(statuses(guesses)).toEqual({ 401: 3, 429: 27 });
      for (const refused of guesses.filter((r) => r.status === 429)) {
        const wait = Number(refused.headers.get("retry-after"));
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(300);
      }
      for (const n of nodes) expect((await uaLogin(n, bot.clientId, bot.clientSecret)).status).toBe(429);
      deployment.clock.advance(5 * MINUTE + 1000);
      expect((await uaLogin(node(1), bot.clientId, bot.clientSecret)).status).toBe(200);
    });

    maybe("universal auth: once locked, the right secret is refused alike on every node, also in a concurrent burst", async () => {
      const bot = await identity();
      const first = await Promise.all(Array.from({ length: 3 }, (_, i) => uaLogin(node(i), bot.clientId, `wrong-${i}`)));
      expect(statuses(first)).toEqual({ 401: 3 });
      const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => uaLogin(node(i), bot.clientId, i % 4 === 0 ? bot.clientSecret : `wrong-${i}`)));
      expect(statuses(burst)).toEqual({ 429: 12 });
      deployment.clock.advance(5 * MINUTE + 1000);
      expect((await uaLogin(nodes[0], bot.clientId, bot.clientSecret)).status).toBe(200);
    });

    maybe("universal auth: a success starts the count again", async () => {
      const bot = await identity();
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 2; i++) expect((await uaLogin(node(i), bot.clientId, "wrong")).status).toBe(401);
        expect((await uaLogin(node(round), bot.clientId, bot.clientSecret)).status).toBe(200);
      }
    });

    maybe("password: 5 failures per (account, address) in 15 minutes, then 429 with Retry-After even for the right password", async () => {
      const email = `user-${++counter}@acme.test`;
      const password = "a long enough password";
      const created = await nodes[0].request("POST", `/api/v1/organizations/${admin.orgId}/users`, { token: admin.token, body: { email, password, role: "member" } });
      expect(created.status).toBe(200);
      const login = (pw: string, from = INSIDE, i = 0) => node(i).request("POST", "/api/v1/auth/login", { body: { email, password: pw }, from });
      for (let i = 0; i < 5; i++) expect((await login("wrong", INSIDE, i)).status).toBe(401);
      const locked = await login(password);
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(locked.headers.get("retry-after"))).toBeLessThanOrEqual(15 * 60);
      expect((await login(password, INSIDE, 1)).status).toBe(429);
      // Another address is another pair.
      expect((await login(password, OUTSIDE)).status).toBe(200);
      deployment.clock.advance(15 * MINUTE + 1000);
      expect((await login(password)).status).toBe(200);
    });

    maybe("password: an unknown e-mail is locked out alike (no account oracle)", async () => {
      const login = (pw: string) => nodes[0].request("POST", "/api/v1/auth/login", { body: { email: `nobody-${++counter}@acme.test`.replace(/\d+/, "x"), password: pw }, from: INSIDE });
      for (let i = 0; i < 5; i++) expect((await login(`guess-${i}`)).status).toBe(401);
      expect((await login("guess-5")).status).toBe(429);
    });

    maybe("password: of 16 concurrent wrong guesses over every node at most 5 are judged", async () => {
      const email = `user-${++counter}@acme.test`;
      await nodes[0].request("POST", `/api/v1/organizations/${admin.orgId}/users`, { token: admin.token, body: { email, password: "a long enough password", role: "member" } });
      const guesses = await Promise.all(
        Array.from({ length: 16 }, (_, i) => node(i).request("POST", "/api/v1/auth/login", { body: { email, password: `wrong-${i}` }, from: INSIDE })),
      );
      const counts = statuses(guesses);
      expect(counts[401]).toBe(5);
      expect(counts[429]).toBe(11);
    });
  });
});

describe("anonymous auth routes are throttled per client address", () => {
  let throttled: Deployment;
  let untrusting: Deployment;
  beforeAll(async () => {
    // The server's default is 20 a minute; a slower refill keeps the test independent of how long each login takes.
    const authRateLimit = { requestsPerSecond: 1 / 600, burst: 10 };
    throttled = await startDeployment("sqlite", 1, { authRateLimit });
    untrusting = await startDeployment("sqlite", 1, { authRateLimit, trustedProxies: [] });
  });
  afterAll(async () => {
    await throttled.close();
    await untrusting.close();
  });

  const attempt = (n: ApiNode, from: string, i: number) =>
    n.request("POST", "/api/v1/auth/login", { body: { email: `probe-${from}-${i}@acme.test`, password: "x" }, from });

  it("lets a burst of 10 through, then answers 429 with Retry-After; another address has its own budget", async () => {
    const [n] = throttled.nodes;
    for (let i = 0; i < 10; i++) expect((await attempt(n, "198.51.100.1", i)).status).toBe(401);
    const refused = await attempt(n, "198.51.100.1", 10);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await n.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: "x", clientSecret: "y" }, from: "198.51.100.1" })).status).toBe(429);
    expect((await attempt(n, "198.51.100.2", 0)).status).toBe(401);
    // Routes that are not anonymous logins are not counted.
    expect((await n.request("GET", "/api/status", { from: "198.51.100.1" })).status).toBe(200);
  });

  it("cannot be dodged with X-Forwarded-For when the peer is not a trusted proxy", async () => {
    const [n] = untrusting.nodes;
    const results = [];
    for (let i = 0; i < 12; i++) results.push((await attempt(n, `198.51.100.${i + 10}`, i)).status);
    expect(results.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(results.slice(10)).toEqual([429, 429]);
  });
});
