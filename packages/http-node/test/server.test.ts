import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { readServerSettings } from "@strongroom/http-node";
import { loadRootKey } from "../src/server/root-key.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-http-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("server settings", () => {
  it("defaults to port 8080 on all interfaces with SQLite in ./data and no rate limit", () => {
    const settings = readServerSettings({});
    expect(settings).toMatchObject({ port: 8080, host: "0.0.0.0", allowPrivateTargets: false });
    expect(settings.dataDir).toBe(join(process.cwd(), "data"));
    expect(settings.postgresUrl).toBeUndefined();
    expect(settings.rateLimit).toBeUndefined();
    // Anonymous auth routes are throttled unless turned off; no proxy is trusted.
    expect(settings.authRateLimit).toEqual({ requestsPerSecond: 20 / 60, burst: 10 });
    expect(readServerSettings({ STRONGROOM_AUTH_RATE_LIMIT: "off" }).authRateLimit).toBe(false);
    expect(settings.trustedProxies.size).toBe(0);
    expect(settings.plaintextCacheSeconds).toBe(300);
    expect(readServerSettings({ STRONGROOM_PLAINTEXT_CACHE_SECONDS: "0" }).plaintextCacheSeconds).toBe(0);
  });

  it("reads every variable", () => {
    const settings = readServerSettings({
      PORT: "9000",
      HOST: "127.0.0.1",
      DATA_DIR: "/var/lib/strongroom",
      DATABASE_URL: "postgresql://u:p@db/strongroom",
      STRONGROOM_ALLOW_PRIVATE_TARGETS: "true",
      SMTP_URL: "smtp://mail:25",
      SMTP_FROM: "alerts@example.com",
      STRONGROOM_WEBHOOK_CA: "/etc/strongroom/webhook-ca.pem",
      STRONGROOM_RATE_LIMIT: "10:20",
      STRONGROOM_AUTH_RATE_LIMIT: "30:5",
      STRONGROOM_TRUSTED_PROXIES: "10.0.0.0/8, 192.168.1.1",
      STRONGROOM_SCHEDULER_TICK_MS: "5000",
      STRONGROOM_DRAIN_TIMEOUT_MS: "3000",
      STRONGROOM_MAX_EVENT_STREAMS: "100",
      STRONGROOM_PLAINTEXT_CACHE_SECONDS: "30",
      METRICS_PORT: "9100",
      METRICS_HOST: "10.0.0.5",
      TLS_CERT_FILE: "/etc/strongroom/tls.crt",
      TLS_KEY_FILE: "/etc/strongroom/tls.key",
      STRONGROOM_AUDIT_FILE: "/var/log/strongroom/audit.jsonl",
      STRONGROOM_AUDIT_FILE_MAX_BYTES: "1048576",
      STRONGROOM_AUDIT_FILE_KEEP: "3",
      STRONGROOM_AUDIT_WEBHOOK_URL: "https://siem.example/hook",
      STRONGROOM_AUDIT_WEBHOOK_SECRET: "hook-signing-secret",
      STRONGROOM_AUDIT_SINK_BUFFER: "500",
    });
    expect(settings).toEqual({
      port: 9000,
      host: "127.0.0.1",
      dataDir: "/var/lib/strongroom",
      postgresUrl: "postgresql://u:p@db/strongroom",
      rootKey: undefined,
      allowPrivateTargets: true,
      allowPrivateDatabases: false,
      smtpUrl: "smtp://mail:25",
      smtpFrom: "alerts@example.com",
      webhookCaFile: "/etc/strongroom/webhook-ca.pem",
      rateLimit: { requestsPerSecond: 10, burst: 20 },
      authRateLimit: { requestsPerSecond: 0.5, burst: 5 },
      trustedProxies: expect.objectContaining({ size: 2 }),
      schedulerTickMs: 5000,
      drainTimeoutMs: 3000,
      maxEventStreams: 100,
      plaintextCacheSeconds: 30,
      metrics: { port: 9100, host: "10.0.0.5" },
      tls: { certFile: "/etc/strongroom/tls.crt", keyFile: "/etc/strongroom/tls.key" },
      auditSinks: {
        file: { path: "/var/log/strongroom/audit.jsonl", maxBytes: 1048576, keep: 3 },
        // The audit webhook trusts the alert webhooks' CA unless STRONGROOM_AUDIT_WEBHOOK_CA names its own.
        webhook: { url: "https://siem.example/hook", secret: "hook-signing-secret", caFile: "/etc/strongroom/webhook-ca.pem" },
        bufferEntries: 500,
      },
    });
  });

  it("names the variable that is wrong", () => {
    expect(() => readServerSettings({ PORT: "http" })).toThrow(/PORT/);
    expect(() => readServerSettings({ STRONGROOM_PLAINTEXT_CACHE_SECONDS: "301" })).toThrow(/STRONGROOM_PLAINTEXT_CACHE_SECONDS/);
    expect(() => readServerSettings({ STRONGROOM_PLAINTEXT_CACHE_SECONDS: "-1" })).toThrow(/STRONGROOM_PLAINTEXT_CACHE_SECONDS/);
    expect(() => readServerSettings({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => readServerSettings({ STRONGROOM_RATE_LIMIT: "fast" })).toThrow(/STRONGROOM_RATE_LIMIT/);
    expect(() => readServerSettings({ STRONGROOM_AUTH_RATE_LIMIT: "0:1" })).toThrow(/STRONGROOM_AUTH_RATE_LIMIT/);
    expect(() => readServerSettings({ STRONGROOM_TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow(/STRONGROOM_TRUSTED_PROXIES/);
    expect(() => readServerSettings({ STRONGROOM_TRUSTED_PROXIES: "proxy.internal" })).toThrow(/STRONGROOM_TRUSTED_PROXIES/);
    expect(() => readServerSettings({ STRONGROOM_SCHEDULER_TICK_MS: "0" })).toThrow(/STRONGROOM_SCHEDULER_TICK_MS/);
  });
});

describe("root key", () => {
  it("is generated on first start, readable by its owner only, and reused after", async () => {
    const dir = tempDir();
    const key = await loadRootKey(undefined, dir);
    expect(Buffer.from(key, "base64")).toHaveLength(32);
    const file = join(dir, "root.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await loadRootKey(undefined, dir)).toBe(key);
    expect(readFileSync(file, "utf8").trim()).toBe(key);
  });

  it("comes from STRONGROOM_ROOT_KEY when set, and no file is written", async () => {
    const dir = tempDir();
    const key = Buffer.alloc(32, 7).toString("base64");
    expect(await loadRootKey(key, dir)).toBe(key);
    expect(() => statSync(join(dir, "root.key"))).toThrow();
  });

  it("is refused when it is not 32 bytes, naming its source", async () => {
    const dir = tempDir();
    await expect(loadRootKey("c2hvcnQ=", dir)).rejects.toThrow(/STRONGROOM_ROOT_KEY.*32 bytes/);
    writeFileSync(join(dir, "root.key"), "nope");
    await expect(loadRootKey(undefined, dir)).rejects.toThrow(/root\.key.*32 bytes/);
  });
});

describe("strongroom command", () => {
  it("exits non-zero with a clear message when it cannot start", async () => {
    const cli = fileURLToPath(new URL("../src/server/cli.ts", import.meta.url));
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", cli], {
      env: { ...process.env, DATA_DIR: tempDir(), STRONGROOM_ROOT_KEY: "dG9vIHNob3J0", PORT: "0", HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/could not start: STRONGROOM_ROOT_KEY: the root key must be 32 bytes/);
  });
});
