import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCa, writeServerCertificate, type TestCa } from "@strongroom/http-node/testing";
import { api, setUpInstance, type Instance } from "./helpers/api.js";
import { requireBuilt, runCli, startServer, tempDir, type ServerProcess } from "./helpers/cli.js";

/**
 * The CLI against a server that serves HTTPS itself (`serve --tls-cert-file/--tls-key-file`) with
 * a certificate from a private CA: trusted through `login --ca-file` (kept in the session),
 * `STRONGROOM_CA_FILE`, or Node's `NODE_EXTRA_CA_CERTS`; refused, with the remedy, otherwise.
 */
let server: ServerProcess;
let ca: TestCa;
let instance: Instance;

beforeAll(async () => {
  requireBuilt();
  const dir = tempDir("tls");
  ca = await createTestCa(dir);
  const { certFile, keyFile } = await writeServerCertificate(ca, dir);
  server = await startServer({ args: ["--tls-cert-file", certFile, "--tls-key-file", keyFile, "--metrics-port", "0"] });
  instance = await setUpInstance(server.url, "member", ca.certificatePem);
  await api(server.url, "POST", "/api/v4/secrets/DB_PASSWORD", {
    token: instance.admin,
    body: { projectId: instance.projectId, environment: "dev", secretPath: "/", secretValue: "over-tls" },
    ca: ca.certificatePem,
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe("strongroom against an HTTPS server with a private CA", { timeout: 120_000 }, () => {
  it("serve takes the TLS and metrics flags: https:// address, metrics on loopback", () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.output()).toMatch(/strongroom metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/);
    expect(server.output()).not.toContain("plain HTTP");
  });

  it("login --ca-file keeps the CA in the session, and later commands use it", async () => {
    const config = tempDir("config");
    const login = await runCli(["login", "--server", server.url, "--ca-file", ca.caFile, "--client-id", instance.clientId], {
      env: { STRONGROOM_CONFIG_DIR: config, STRONGROOM_CLIENT_SECRET: instance.clientSecret },
    });
    expect(login.stderr).toContain(`logged in to ${server.url}`);
    expect(login.code).toBe(0);
    expect(JSON.parse(readFileSync(join(config, "session.json"), "utf8"))).toMatchObject({ server: server.url, caFile: ca.caFile });

    const get = await runCli(["secrets", "get", "--plain", "--project", instance.projectId, "DB_PASSWORD"], { env: { STRONGROOM_CONFIG_DIR: config } });
    expect(get.stderr).toBe("");
    expect(get.stdout).toBe("over-tls\n");
  });

  it("refuses the server without the CA, and says to pass --ca-file", async () => {
    const login = await runCli(["login", "--server", server.url, "--client-id", instance.clientId], {
      env: { STRONGROOM_CONFIG_DIR: tempDir("config"), STRONGROOM_CLIENT_SECRET: instance.clientSecret },
    });
    expect(login.code).toBe(1);
    expect(login.stderr).toMatch(/certificate is not trusted .*--ca-file/);
  });

  it("takes the CA from STRONGROOM_CA_FILE, or from NODE_EXTRA_CA_CERTS", async () => {
    const env = { STRONGROOM_CONFIG_DIR: tempDir("config"), STRONGROOM_URL: server.url, STRONGROOM_TOKEN: instance.admin, STRONGROOM_PROJECT_ID: instance.projectId };
    const viaVariable = await runCli(["secrets", "list", "--plain"], { env: { ...env, STRONGROOM_CA_FILE: ca.caFile } });
    expect(viaVariable.stdout).toBe("DB_PASSWORD\n");
    const viaNode = await runCli(["secrets", "list", "--plain"], { env: { ...env, NODE_EXTRA_CA_CERTS: ca.caFile } });
    expect(viaNode.stdout).toBe("DB_PASSWORD\n");
  });
});
