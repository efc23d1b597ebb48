import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCa, startApi, writeServerCertificate, type TestApi, type TestCa } from "@strongroom/http-node/testing";
import { spawnProxy, type ProxyProcess } from "./helpers/spawn-proxy.js";
import { startTlsFront, type TlsFront } from "./helpers/tls-front.js";
import { registeredProxy, seedWorld, type World } from "./helpers/world.js";

/**
 * The proxy against a Strongroom server reached over HTTPS with a certificate from a private CA
 * (issue #18): refused with the remedy without the CA, trusted through `--ca-file` or
 * `STRONGROOM_CA_FILE` (the strongroom CLI's variable).
 */
describe("strongroom-agent-proxy and a server with a private CA", { timeout: 60_000 }, () => {
  let api: TestApi;
  let front: TlsFront;
  let ca: TestCa;
  let world: World<never>;
  let dir: string;
  let running: ProxyProcess | undefined;

  const args = (dataDir: string, extra: string[] = []) => ["--server", front.url, "--listen", "127.0.0.1:0", "--data-dir", dataDir, ...extra];
  const stop = async () => {
    running!.child.kill("SIGTERM");
    const code = await running!.exited;
    running = undefined;
    return code;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "strongroom-agent-proxy-ca-"));
    api = await startApi();
    world = await seedWorld(api, {}, {});
    ca = await createTestCa(dir);
    front = await startTlsFront(api.url, await writeServerCertificate(ca, dir));
  });

  afterAll(async () => {
    if (running) await stop();
    await front?.close();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses the server's certificate without the CA, and says to pass --ca-file", async () => {
    const { enrollmentToken } = await registeredProxy(api, world.admin, { name: "untrusting" });
    const refused = spawnProxy(args(join(dir, "untrusting"), ["--enrollment-token", enrollmentToken]), { NODE_EXTRA_CA_CERTS: "" });
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toMatch(/could not start: .*the server's TLS certificate is not trusted \(\w+\); pass --ca-file/);
  });

  it("enrolls with --ca-file, then resumes with STRONGROOM_CA_FILE", async () => {
    const dataDir = join(dir, "trusting");
    const { id, enrollmentToken } = await registeredProxy(api, world.admin, { name: "trusting" });
    running = spawnProxy(args(dataDir, ["--ca-file", ca.caFile, "--enrollment-token", enrollmentToken]));
    await running.waitFor(/listening on http:\/\/\S+/);
    expect(running.output()).toContain('"msg":"enrolled"');
    // How the proxy shuts down is cli.test.ts's subject; here only the enrollment it kept matters.
    await stop();

    running = spawnProxy(args(dataDir), { STRONGROOM_CA_FILE: ca.caFile });
    const [, fingerprint] = await running.waitFor(/listening on http:\/\/\S+ \(proxy \S+, CA (\S+)\)/);
    expect(running.output()).toContain('"msg":"resumed enrollment"');
    // The server got this proxy's CA at enrollment and its check-ins since, all over TLS.
    const shown = await api.request("GET", `/api/v1/agent-vault/proxies/${id}`, { token: world.admin });
    expect(shown.body.proxy).toMatchObject({ rootCaFingerprint: fingerprint, isHealthy: true });
    await stop();
  });
});
