import { readFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "@strongroom/http-node/testing";
import { Sealer } from "../src/state/sealing.js";
import { agentDispatcher, agentRequest } from "./helpers/agent-client.js";
import { spawnProxy, type ProxyProcess } from "./helpers/spawn-proxy.js";
import { startHttpsUpstream, upstreamCertificates, type TestUpstream } from "./helpers/upstream.js";
import { ok, openSession, registeredProxy, seedWorld, type World } from "./helpers/world.js";

const API_TOKEN = "cli-upstream-secret-0001";

describe("the strongroom-agent-proxy command", () => {
  let api: TestApi;
  let upstream: TestUpstream;
  let world: World<"svc">;
  let dir: string;
  let dataDir: string;
  let caFile: string;
  let running: ProxyProcess | undefined;

  const args = (extra: string[] = []) => ["--server", api.url, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--allow-private-targets", "--upstream-ca", caFile, ...extra];
  const started = async (extra: string[] = []) => {
    running = spawnProxy(args(extra));
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    return url!;
  };
  const brokers = async (proxyUrl: string) => {
    const ca = (await (await fetch(`${proxyUrl}/_agent-vault/ca`)).json()) as { certificate: string; fingerprint: string };
    const session = await openSession(api, world);
    const dispatcher = agentDispatcher({ proxyUrl, proxyAuthorization: `Bearer ${session.token}`, proxyCa: ca.certificate });
    const res = await agentRequest(dispatcher, `${upstream.origin}/cli`);
    await dispatcher.close();
    expect(res.status).toBe(200);
    expect(upstream.received.at(-1)!.headers.authorization).toBe(`Bearer ${API_TOKEN}`);
    return ca.fingerprint;
  };
  const stop = async () => {
    running!.child.kill("SIGTERM");
    const code = await running!.exited;
    running = undefined;
    return code;
  };

  beforeAll(async () => {
    api = await startApi();
    const certificates = await upstreamCertificates();
    upstream = await startHttpsUpstream(certificates);
    world = await seedWorld(api, { API_TOKEN }, { svc: { hostPattern: `127.0.0.1:${upstream.port}`, credentials: [{ headerName: "Authorization", headerPrefix: "Bearer", secretKey: "API_TOKEN" }] } });
    dir = mkdtempSync(join(tmpdir(), "strongroom-agent-proxy-cli-"));
    dataDir = join(dir, "data");
    caFile = join(dir, "upstream-ca.pem");
    writeFileSync(caFile, certificates.certificatePem);
  });

  afterAll(async () => {
    if (running) await stop();
    await upstream?.close();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses bad options with a message and the usage", async () => {
    const bad = spawnProxy(["--server", "http://127.0.0.1:1", "--listen", "nowhere"]);
    expect(await bad.exited).toBe(1);
    expect(bad.output()).toContain("--listen must be host:port");
    expect(bad.output()).toContain("Usage: strongroom-agent-proxy");
  });

  it("enrolls, brokers, keeps its secrets sealed, resumes after a restart and exits when revoked", async () => {
    const { id, enrollmentToken } = await registeredProxy(api, world.admin, { name: "cli" });
    const first = await started(["--enrollment-token", enrollmentToken]);
    const fingerprint = await brokers(first);
    expect(running!.output()).toContain('"msg":"enrolled"');
    expect(await stop()).toBe(0);

    // The key file and the state are the owner's only; neither the CA key nor the token is stored in clear.
    expect(statSync(join(dataDir, "proxy.key")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, "state.json")).mode & 0o777).toBe(0o600);
    const stateText = readFileSync(join(dataDir, "state.json"), "utf8");
    const state = JSON.parse(stateText);
    expect(stateText).not.toContain("PRIVATE KEY");
    const sealer = new Sealer(Buffer.from(readFileSync(join(dataDir, "proxy.key"), "utf8").trim(), "base64"));
    const accessToken = sealer.open("access-token", state.enrollment.accessToken);
    expect(stateText).not.toContain(accessToken);
    expect((await api.request("POST", "/api/v1/agent-vault/proxy/heartbeat", { token: accessToken, body: {} })).status).toBe(200);

    // A restart resumes with the stored token; the spent enrollment token is not needed.
    const second = await started();
    expect(running!.output()).toContain('"msg":"resumed enrollment"');
    expect(await brokers(second)).toBe(fingerprint);

    await ok(api.request("POST", `/api/v1/agent-vault/proxies/${id}/revoke`, { token: world.admin }));
    running!.child.kill("SIGHUP");
    expect(await running!.exited).toBe(2);
    expect(running!.output()).toMatch(/stopped: the server refused this proxy's token/);
    running = undefined;

    const refused = spawnProxy(args());
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain("Issue a new enrollment token");

    // A new enrollment token re-enrolls the same CA, so agents keep trusting it.
    const reissued = await ok(api.request("POST", `/api/v1/agent-vault/proxies/${id}/enrollment-token`, { token: world.admin }));
    const third = await started(["--enrollment-token", reissued.token]);
    expect(await brokers(third)).toBe(fingerprint);
    expect(await stop()).toBe(0);
  });
});
