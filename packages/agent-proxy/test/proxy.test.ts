import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "@strongroom/http-node/testing";
import { startAgentProxy, type AgentProxy, type AgentProxyOptions } from "../src/index.js";
import { agentDispatcher, agentRequest } from "./helpers/agent-client.js";
import { connectHead, rawProxyRequest } from "./helpers/raw-proxy.js";
import { startRelay, type Relay } from "./helpers/relay.js";
import { startHttpsUpstream, startHttpUpstream, upstreamCertificates, type TestUpstream, type UpstreamCa } from "./helpers/upstream.js";
import { ok, openSession, registeredProxy, seedWorld, type World } from "./helpers/world.js";

const API_TOKEN = "upstream-secret-0001";
// A quote and a backslash: each substitution surface must carry them with its own encoding.
const SUBSTITUTED = 'sub"secret\\value-0002';
const PLACEHOLDER = "__SR_PLACEHOLDER__";
const B_KEY = "b-key-0003";
const PLAIN_KEY = "plain-key-0004";
const BAD_VALUE = "bad-value\r\nX-Injected: yes";
const SECRETS = { API_TOKEN, SUBSTITUTED, B_KEY, PLAIN_KEY, BAD_VALUE };

type ServiceName = "brokered" | "toggled" | "crlf" | "plain" | "ipv6";

describe("agent proxy, end to end on loopback", () => {
  let api: TestApi;
  let relay: Relay;
  let certificates: UpstreamCa;
  const up = {} as Record<"a" | "b" | "c" | "uncovered" | "plain" | "ipv6", TestUpstream>;
  let world: World<ServiceName>;
  let proxy: AgentProxy;
  let strict: AgentProxy;
  let session: { id: string; token: string };
  const logs: string[] = [];
  const dirs: string[] = [];
  const proxies: AgentProxy[] = [];

  const start = async (registration: Record<string, unknown>, options: Partial<AgentProxyOptions> = {}) => {
    const { id, enrollmentToken } = await registeredProxy(api, world.admin, registration);
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-agent-proxy-"));
    dirs.push(dataDir);
    const started = await startAgentProxy({
      server: relay.url,
      enrollmentToken,
      dataDir,
      listen: "127.0.0.1:0",
      allowPrivateTargets: true,
      upstreamCa: certificates.certificatePem,
      logger: (line) => logs.push(line),
      ...options,
    });
    proxies.push(started);
    return Object.assign(started, { registeredId: id });
  };
  const agent = (via: AgentProxy, token = session.token, extra: { tunnelPlainHttp?: boolean; basic?: boolean } = {}) =>
    agentDispatcher({
      proxyUrl: via.url,
      proxyAuthorization: extra.basic ? `Basic ${Buffer.from(`agent:${token}`).toString("base64")}` : `Bearer ${token}`,
      proxyCa: via.caCertificate,
      ...(extra.tunnelPlainHttp !== undefined ? { tunnelPlainHttp: extra.tunnelPlainHttp } : {}),
    });
  const requestLines = () => logs.map((line) => JSON.parse(line)).filter((entry) => entry.msg === "request");
  const lastRequestLine = () => requestLines().at(-1);

  beforeAll(async () => {
    api = await startApi();
    relay = await startRelay(api.url);
    certificates = await upstreamCertificates();
    up.a = await startHttpsUpstream(certificates);
    up.b = await startHttpsUpstream(certificates);
    up.c = await startHttpsUpstream(certificates);
    up.uncovered = await startHttpsUpstream(certificates);
    up.plain = await startHttpUpstream();
    up.ipv6 = await startHttpsUpstream(certificates, "::1");
    world = await seedWorld(api, SECRETS, {
      brokered: {
        hostPattern: `127.0.0.1:${up.a.port}`,
        credentials: [
          { headerName: "Authorization", headerPrefix: "Bearer", secretKey: "API_TOKEN" },
          { placeholderKey: "SUBSTITUTED", placeholderValue: PLACEHOLDER, substitutionSurfaces: ["header", "query", "body"], secretKey: "SUBSTITUTED" },
        ],
      },
      toggled: { hostPattern: `127.0.0.1:${up.b.port}`, credentials: [{ headerName: "X-Api-Key", secretKey: "B_KEY" }] },
      crlf: { hostPattern: `127.0.0.1:${up.c.port}`, credentials: [{ headerName: "X-Bad", secretKey: "BAD_VALUE" }] },
      plain: { hostPattern: `127.0.0.1:${up.plain.port}`, credentials: [{ headerName: "X-Plain", secretKey: "PLAIN_KEY" }] },
      ipv6: { hostPattern: `[::1]:${up.ipv6.port}`, credentials: [{ headerName: "Authorization", headerPrefix: "Bearer", secretKey: "API_TOKEN" }] },
    });
    proxy = await start({ name: "any-host" });
    strict = await start({ name: "strict", trafficPolicy: "bundle-hosts" });
    session = await openSession(api, world);
  });

  afterAll(async () => {
    for (const running of proxies) await running.close();
    for (const upstream of Object.values(up)) await upstream?.close();
    await relay?.close();
    await api?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("serves its CA and the fingerprint the server recorded at enrollment", async () => {
    const res = await fetch(`${proxy.url}/_agent-vault/ca`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { certificate: string; fingerprint: string };
    expect(Object.keys(body).sort()).toEqual(["certificate", "fingerprint"]);
    const certificate = new X509Certificate(body.certificate);
    expect(certificate.ca).toBe(true);
    expect(certificate.publicKey.asymmetricKeyDetails).toMatchObject({ namedCurve: "prime256v1" });
    expect(body.fingerprint).toBe(`SHA256:${certificate.fingerprint256}`);
    expect(body.fingerprint).toMatch(/^SHA256:([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const admin = await ok(api.request("GET", `/api/v1/agent-vault/proxies/${proxy.proxyId}`, { token: world.admin }));
    expect(admin.proxy.rootCaFingerprint).toBe(body.fingerprint);
  });

  it("injects the brokered Authorization header: the agent holds only its session token", async () => {
    for (const basic of [false, true]) {
      const dispatcher = agent(proxy, session.token, { basic });
      const res = await agentRequest(dispatcher, `${up.a.origin}/v1/user?page=2`, { headers: { accept: "application/json" } });
      await dispatcher.close();
      expect(res.status).toBe(200);
      expect(res.headers["x-upstream"]).toBe("yes");
      const seen = up.a.received.at(-1)!;
      expect(seen.url).toBe("/v1/user?page=2");
      expect(seen.headers.authorization).toBe(`Bearer ${API_TOKEN}`);
      expect(seen.headers.host).toBe(`127.0.0.1:${up.a.port}`);
      expect(seen.headers["proxy-authorization"]).toBeUndefined();
      expect(lastRequestLine()).toMatchObject({ action: "broker", reason: "service-match", status: 200, session: session.id, service: world.services.brokered.id });
    }
  });

  it("substitutes a placeholder in a header, the query and a JSON body, each with its encoding", async () => {
    const dispatcher = agent(proxy);
    const body = JSON.stringify({ secret: PLACEHOLDER, note: "kept" });
    const res = await agentRequest(dispatcher, `${up.a.origin}/v1/items?key=${PLACEHOLDER}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-token": `token ${PLACEHOLDER}` },
      body,
    });
    await dispatcher.close();
    expect(res.status).toBe(200);
    const seen = up.a.received.at(-1)!;
    expect(seen.headers["x-token"]).toBe(`token ${SUBSTITUTED}`);
    expect(seen.url).toBe(`/v1/items?key=${encodeURIComponent(SUBSTITUTED)}`);
    expect(JSON.parse(seen.body)).toEqual({ secret: SUBSTITUTED, note: "kept" });
    expect(Number(seen.headers["content-length"])).toBe(Buffer.byteLength(seen.body));
  });

  it("intercepts and brokers an IPv6 literal destination", async () => {
    const dispatcher = agent(proxy);
    const res = await agentRequest(dispatcher, `${up.ipv6.origin}/v6`);
    await dispatcher.close();
    expect(res.status).toBe(200);
    expect(up.ipv6.received.at(-1)!.headers).toMatchObject({ authorization: `Bearer ${API_TOKEN}`, host: `[::1]:${up.ipv6.port}` });
    expect(lastRequestLine()).toMatchObject({ host: "::1", port: up.ipv6.port, action: "broker" });
  });

  it("answers 407 with Proxy-Authenticate when Proxy-Authorization is missing", async () => {
    const tunnel = await rawProxyRequest(proxy.url, connectHead(`127.0.0.1:${up.a.port}`));
    expect(tunnel.status).toBe(407);
    expect(tunnel.headers["proxy-authenticate"]!.join(",")).toMatch(/Bearer realm=.*Basic realm=/);
    expect(JSON.parse(tunnel.body)).toMatchObject({ statusCode: 407, reason: "proxy-authentication-required" });

    const plain = await rawProxyRequest(proxy.url, `GET ${up.plain.origin}/ HTTP/1.1\r\nHost: 127.0.0.1:${up.plain.port}\r\nConnection: close\r\n\r\n`);
    expect(plain.status).toBe(407);
    expect(plain.headers["proxy-authenticate"]).toHaveLength(2);
    expect(up.plain.received).toHaveLength(0);

    const wrongScheme = await rawProxyRequest(proxy.url, connectHead(`127.0.0.1:${up.a.port}`, { "Proxy-Authorization": "Digest abc" }));
    expect(wrongScheme.status).toBe(407);
  });

  it("answers 403 to a session token it does not know", async () => {
    const answer = await rawProxyRequest(proxy.url, connectHead(`127.0.0.1:${up.a.port}`, { "Proxy-Authorization": "Bearer agv_not-a-real-session" }));
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 403, error: "PermissionDenied", reason: "session-not-live" });
  });

  it("under bundle-hosts refuses an uncovered host with 403 naming it, and brokers covered ones", async () => {
    const dispatcher = agent(strict);
    const denied = await agentRequest(dispatcher, `${up.uncovered.origin}/anything`);
    expect(denied.status).toBe(403);
    const body = denied.json();
    expect(body).toMatchObject({ statusCode: 403, error: "PermissionDenied", reason: "host-not-allowed", host: "127.0.0.1" });
    expect(body.message).toContain(`127.0.0.1:${up.uncovered.port}`);
    expect(up.uncovered.connections).toBe(0);
    expect(lastRequestLine()).toMatchObject({ action: "deny", reason: "host-not-allowed", status: 403, port: up.uncovered.port });

    const brokered = await agentRequest(dispatcher, `${up.a.origin}/covered`);
    await dispatcher.close();
    expect(brokered.status).toBe(200);
    expect(up.a.received.at(-1)!.headers.authorization).toBe(`Bearer ${API_TOKEN}`);
  });

  it("refuses a credential whose value has CR/LF for a header: 502, nothing injected or sent", async () => {
    const dispatcher = agent(proxy);
    const res = await agentRequest(dispatcher, `${up.c.origin}/x`);
    await dispatcher.close();
    expect(res.status).toBe(502);
    expect(res.json()).toMatchObject({ statusCode: 502, reason: "credential-refused" });
    expect(res.text).not.toContain("bad-value");
    expect(up.c.received).toHaveLength(0);
  });

  it("never injects on plain http, tunnelled or absolute-form", async () => {
    for (const tunnelPlainHttp of [false, true]) {
      const dispatcher = agent(proxy, session.token, { tunnelPlainHttp });
      const res = await agentRequest(dispatcher, `${up.plain.origin}/plain?via=${tunnelPlainHttp ? "connect" : "absolute"}`);
      await dispatcher.close();
      expect(res.status).toBe(200);
      const seen = up.plain.received.at(-1)!;
      expect(seen.url).toBe(`/plain?via=${tunnelPlainHttp ? "connect" : "absolute"}`);
      expect(seen.headers["x-plain"]).toBeUndefined();
      expect(seen.headers["proxy-authorization"]).toBeUndefined();
      expect(lastRequestLine()).toMatchObject({ action: "passthrough", reason: "tls-required", tls: false, status: 200 });
    }
  });

  it("refuses link-local and cloud metadata addresses without dialling them", async () => {
    const dispatcher = agent(proxy);
    const viaTls = await agentRequest(dispatcher, "https://169.254.169.254/latest/meta-data/");
    expect(viaTls.status).toBe(403);
    expect(viaTls.json()).toMatchObject({ reason: "destination-refused", host: "169.254.169.254" });
    expect(viaTls.json().message).toContain("metadata");
    await dispatcher.close();

    const plain = agent(proxy, session.token, { tunnelPlainHttp: false });
    for (const url of ["http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/", "http://169.254.10.10/"]) {
      const res = await agentRequest(plain, url);
      expect(res.status).toBe(403);
      expect(res.json().reason).toBe("destination-refused");
      expect(lastRequestLine()).toMatchObject({ action: "deny", reason: "destination-refused", status: 403 });
    }
    await plain.close();
  });

  it("refuses loopback upstreams unless private targets are allowed", async () => {
    const closed = await start({ name: "no-private" }, { allowPrivateTargets: false });
    const dispatcher = agent(closed);
    const res = await agentRequest(dispatcher, `${up.a.origin}/x`);
    await dispatcher.close();
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ reason: "destination-refused" });
    expect(res.json().message).toContain("loopback");
    await closed.close();
  });

  it("skips a disabled service after the next refresh: passthrough without a credential", async () => {
    const dispatcher = agent(proxy);
    expect((await agentRequest(dispatcher, `${up.b.origin}/before`)).status).toBe(200);
    expect(up.b.received.at(-1)!.headers["x-api-key"]).toBe(B_KEY);

    await ok(api.request("PATCH", `/api/v1/proxied-services/${world.services.toggled.id}`, { token: world.admin, body: { isEnabled: false } }));
    await proxy.refresh();
    const after = await agentRequest(dispatcher, `${up.b.origin}/after`);
    await dispatcher.close();
    expect(after.status).toBe(200);
    expect(up.b.received.at(-1)!.url).toBe("/after");
    expect(up.b.received.at(-1)!.headers["x-api-key"]).toBeUndefined();
    expect(lastRequestLine()).toMatchObject({ action: "passthrough", reason: "no-matching-service" });
  });

  it("refuses a revoked session with 403 after the next refresh, on an open tunnel too", async () => {
    const own = await openSession(api, world);
    const dispatcher = agent(proxy, own.token);
    expect((await agentRequest(dispatcher, `${up.a.origin}/live`)).status).toBe(200);

    await ok(api.request("DELETE", `/api/v1/agent-vault/sessions/${own.id}`, { token: world.bot.token }));
    await proxy.refresh();
    const onTunnel = await agentRequest(dispatcher, `${up.a.origin}/revoked`);
    await dispatcher.close();
    expect(onTunnel.status).toBe(403);
    expect(onTunnel.json()).toMatchObject({ reason: "session-not-live" });
    expect(up.a.received.at(-1)!.url).not.toBe("/revoked");

    const fresh = await rawProxyRequest(proxy.url, connectHead(`127.0.0.1:${up.a.port}`, { "Proxy-Authorization": `Bearer ${own.token}` }));
    expect(fresh.status).toBe(403);
  });

  it("keeps serving from its last good config while the server is away", async () => {
    const dispatcher = agent(proxy);
    expect((await agentRequest(dispatcher, `${up.a.origin}/warm`)).status).toBe(200);

    await relay.down();
    await proxy.refresh();
    expect(logs.some((line) => line.includes("serving from the last good config"))).toBe(true);
    const during = await agentRequest(dispatcher, `${up.a.origin}/during-outage`);
    expect(during.status).toBe(200);
    expect(up.a.received.at(-1)!.headers.authorization).toBe(`Bearer ${API_TOKEN}`);
    // A destination it has no decision for cannot be decided without the server.
    const undecided = await agentRequest(dispatcher, `${up.uncovered.origin}/during-outage`);
    expect(undecided.status).toBe(502);
    expect(undecided.json()).toMatchObject({ reason: "decision-unavailable" });

    await relay.up();
    await proxy.refresh();
    expect((await agentRequest(dispatcher, `${up.uncovered.origin}/after-outage`)).status).toBe(200);
    await dispatcher.close();
  });

  it("logs one JSON line per request with the decision, and never a credential or token", async () => {
    const lines = requestLines();
    expect(lines.length).toBeGreaterThan(20);
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(expect.arrayContaining(["time", "method", "host", "port", "tls", "action", "reason", "status", "durationMs", "session"]));
      expect(["broker", "passthrough", "deny"]).toContain(line.action);
    }
    const everything = logs.join("\n");
    for (const secret of [...Object.values(SECRETS), session.token, "agv_"]) expect(everything).not.toContain(secret);
  });

  it("stops when the server revokes it", async () => {
    const doomed = await start({ name: "doomed" });
    await ok(api.request("POST", `/api/v1/agent-vault/proxies/${doomed.proxyId}/revoke`, { token: world.admin }));
    await doomed.refresh();
    await expect(doomed.stopped).resolves.toMatchObject({ reason: "revoked" });
    await expect(
      new Promise((resolve, reject) => {
        const socket = connect(doomed.port, "127.0.0.1", () => resolve("connected"));
        socket.on("error", (error: NodeJS.ErrnoException) => reject(error));
      }),
    ).rejects.toMatchObject({ code: "ECONNREFUSED" });
    expect(logs.some((line) => line.includes("revoked this proxy"))).toBe(true);
  });
});
