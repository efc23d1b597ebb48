import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { auditEntrySchema, verifyChain, type AuditEntry } from "@strongroom/core/audit";
import { LOOPBACK, startSilentEndpoint, type Running } from "@strongroom/core/testing";
import { createStrongroomServer, type StrongroomServer } from "@strongroom/http-node";

const SECRET_VALUE = "streamed-secret-value-never-in-a-sink";

/**
 * `strongroom serve` with both streams configured: a JSON-lines file and a webhook that accepts
 * connections and never answers. Requests are served while the webhook is stuck; its buffer fills
 * and it drops and reports; the file holds every entry, which verifies chain by chain.
 */
describe("audit streams of a running server", { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-audit-streams-"));
  const file = join(dir, "audit.log");
  let stuck: Running;
  let server: StrongroomServer;

  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };

  beforeAll(async () => {
    stuck = await startSilentEndpoint();
    server = await createStrongroomServer(
      {
        DATA_DIR: join(dir, "data"),
        PORT: "0",
        HOST: LOOPBACK,
        STRONGROOM_AUDIT_FILE: file,
        STRONGROOM_AUDIT_WEBHOOK_URL: `https://${LOOPBACK}:${stuck.port}/hook`,
        STRONGROOM_AUDIT_WEBHOOK_SECRET: "stream-test-secret-0123456789",
        STRONGROOM_AUDIT_SINK_BUFFER: "20",
      },
      { logger: () => {} },
    );
  });
  afterAll(async () => {
    await server?.close();
    await stuck?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves every request while the webhook is stuck, and the file holds a verifiable copy", async () => {
    const boot = await call("POST", "/api/v1/admin/bootstrap", undefined, { email: "ops@example.com", password: "a long password", organization: "Acme" });
    expect(boot.status).toBe(200);
    const token: string = boot.body.identity.credentials.token;
    const { body } = await call("POST", "/api/v1/projects", token, { projectName: "Payments" });
    const projectId: string = body.project.id;
    expect((await call("POST", "/api/v3/secrets/raw/DB_URL", token, { workspaceId: projectId, environment: "dev", secretValue: SECRET_VALUE })).status).toBe(200);
    // Reads in rounds of 10, each round flushed and written to the file before the next: the
    // file never holds more than its buffer, the stuck webhook holds its 20 and drops the rest.
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 10; i++) {
        expect((await call("GET", `/api/v3/secrets/raw/DB_URL?workspaceId=${projectId}&environment=dev`, token)).status).toBe(200);
      }
      await server.strongroom.audit.flush();
      await vi.waitFor(() => expect(server.auditSinkLag()[0]).toMatchObject({ pending: 0 }));
    }

    const [fileLag, hookLag] = server.auditSinkLag();
    expect(fileLag).toMatchObject({ sink: `file:${file}`, pending: 0, dropped: 0 });
    expect(hookLag).toMatchObject({ capacity: 20, pending: 20, delivered: 0 });
    expect(hookLag.dropped).toBeGreaterThanOrEqual(40);
    expect(hookLag.oldestPendingAt).not.toBeNull();

    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(SECRET_VALUE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const entries = text.trim().split("\n").map((line) => auditEntrySchema.parse(JSON.parse(line)));
    const chains = new Map<string, AuditEntry[]>();
    for (const entry of entries) chains.set(entry.chain, [...(chains.get(entry.chain) ?? []), entry]);
    const projectChain = chains.get(`project:${projectId}`) ?? [];
    expect(projectChain.filter((e) => e.event.type === "get-secret")).toHaveLength(60);
    // The file saw every entry from the server's first one: each chain verifies from its genesis.
    for (const [chain, list] of chains) expect(verifyChain(chain, list)).toMatchObject({ ok: true, checked: list.length });
  });
});
