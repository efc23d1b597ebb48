import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, describe, expect, it } from "vitest";
import { generateRootKey } from "@strongroom/core";
import { certificateFingerprint } from "@strongroom/core/x509";
import { createStrongroomServer, isLoopbackHost, readServerSettings, silentLogger } from "@strongroom/http-node";
import { createTestCa, writeServerCertificate } from "@strongroom/http-node/testing";
import { spawnServer, type ServerProcess } from "./helpers/spawn-server.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-tls-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One HTTPS GET on a fresh connection: the status and the fingerprint of the certificate served. */
function get(url: string, ca: string | undefined, path = "/api/status"): Promise<{ status: number; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { ca, agent: false }, (res) => {
      const peer = (res.socket as TLSSocket).getPeerCertificate();
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, fingerprint: certificateFingerprint(peer.raw) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("HTTPS from TLS_CERT_FILE and TLS_KEY_FILE", () => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("serves HTTPS a client trusting the CA accepts, and serves a new certificate after SIGHUP", async () => {
    const dir = tempDir();
    const ca = await createTestCa(dir);
    const first = await writeServerCertificate(ca, dir);
    server = await spawnServer({ DATA_DIR: join(dir, "data"), STRONGROOM_ROOT_KEY: generateRootKey(), TLS_CERT_FILE: first.certFile, TLS_KEY_FILE: first.keyFile });
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);

    const answer = await get(server.url, ca.certificatePem);
    expect(answer).toEqual({ status: 200, fingerprint: first.fingerprintSha256 });
    // A client without the private CA refuses the server.
    await expect(get(server.url, undefined)).rejects.toThrow(/certificate/i);

    // Renewal: new files in place, SIGHUP, and new connections get the new certificate.
    const renewed = await writeServerCertificate(ca, dir);
    expect(renewed.fingerprintSha256).not.toBe(first.fingerprintSha256);
    server.child.kill("SIGHUP");
    await expect.poll(() => server!.output(), { timeout: 10_000 }).toContain("TLS certificate reloaded");
    expect(await get(server.url, ca.certificatePem)).toEqual({ status: 200, fingerprint: renewed.fingerprintSha256 });

    // A broken file on SIGHUP is reported and the certificate in use stays.
    writeFileSync(renewed.keyFile, "not a key");
    server.child.kill("SIGHUP");
    await expect.poll(() => server!.output(), { timeout: 10_000 }).toContain("TLS certificate not reloaded, the previous one stays");
    expect(await get(server.url, ca.certificatePem)).toEqual({ status: 200, fingerprint: renewed.fingerprintSha256 });
    expect(server.child.exitCode).toBeNull();

    expect(await server.stop()).toBe(0);
    server = undefined;
  }, 60_000);

  it("refuses to start with only one of the two files, or a key that is not the certificate's", async () => {
    const dir = tempDir();
    const ca = await createTestCa(dir);
    const one = await writeServerCertificate(ca, dir, "one");
    const other = await writeServerCertificate(ca, dir, "other");
    expect(() => readServerSettings({ TLS_CERT_FILE: one.certFile })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE go together/);
    expect(() => readServerSettings({ TLS_KEY_FILE: one.keyFile })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE go together/);
    await expect(
      createStrongroomServer(
        { PORT: "0", HOST: "127.0.0.1", DATA_DIR: join(dir, "data"), TLS_CERT_FILE: one.certFile, TLS_KEY_FILE: other.keyFile },
        { logger: silentLogger },
      ),
    ).rejects.toThrow(/^TLS_CERT_FILE\/TLS_KEY_FILE: .*key values mismatch/);
  });
});

describe("the plain-HTTP warning", () => {
  it("is given for every address but loopback ones", () => {
    const cases: [string, boolean][] = [
      ["127.0.0.1", true],
      ["127.1.2.3", true],
      ["::1", true],
      ["[::1]", true],
      ["localhost", true],
      ["::ffff:127.0.0.1", true],
      ["0.0.0.0", false],
      ["::", false],
      ["10.0.0.5", false],
      ["192.168.1.10", false],
      ["example.com", false],
      ["128.0.0.1", false],
    ];
    for (const [host, loopback] of cases) expect([host, isLoopbackHost(host)]).toEqual([host, loopback]);
  });

  it("is not given when the server listens on loopback", async () => {
    const dir = tempDir();
    const lines: string[] = [];
    const running = await createStrongroomServer({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir }, { logger: (line) => lines.push(line) });
    await running.close();
    expect(lines.filter((line) => line.includes("plain HTTP"))).toEqual([]);
  });
});
