import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateRootKey } from "@strongroom/core";
import { createStrongroomServer, silentLogger, type StrongroomServer } from "@strongroom/http-node";
import { PG_URL, withPostgres, type TestDatabase } from "@strongroom/storage-postgres/testing";
import { call } from "../helpers/spawn-server.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

/** `/api/status/ready` says whether to send traffic here; `/api/status` only that the process lives. */
describe("readiness", () => {
  const dirs: string[] = [];
  let pg: TestDatabase | undefined;
  let proxy: TcpProxy | undefined;
  let running: StrongroomServer | undefined;
  afterAll(async () => {
    await running?.close();
    await proxy?.close();
    if (pg?.available) await pg.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string>) => {
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-ready-"));
    dirs.push(dataDir);
    return createStrongroomServer({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, ...env }, { logger: silentLogger });
  };

  it("answers 200 when ready, and 503 with a reason from the moment a drain begins (SQLite)", async () => {
    running = await start({});
    const ready = await fetch(`${running.url}/api/status/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });

    running.handler.shutdown();
    const draining = await fetch(`${running.url}/api/status/ready`);
    expect(draining.status).toBe(503);
    expect(draining.headers.get("retry-after")).toBe("1");
    expect(await draining.json()).toMatchObject({ statusCode: 503, error: "ServiceUnavailable", message: "The server is shutting down" });
    // Liveness is not readiness: the process still answers.
    expect((await call(running.url, "GET", "/api/status")).status).toBe(200);
    await running.close();
    running = undefined;
  });

  it("flips to 503 while PostgreSQL is away and back to 200 when it returns; requests meanwhile get 503, not 500", async (ctx) => {
    pg = await withPostgres();
    if (!pg.available) return ctx.skip();
    const target = new URL(PG_URL);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    running = await start({ DATABASE_URL: proxy.url(pg.url), STRONGROOM_ROOT_KEY: generateRootKey(), METRICS_PORT: "0" });
    const url = running.url;
    const setup = await call(url, "POST", "/api/v1/admin/bootstrap", { body: { email: "ready@example.com", password: "a long password", organization: "Ready" } });
    const token = setup.body.identity.credentials.token as string;
    const project = (await call(url, "POST", "/api/v1/projects", { token, body: { projectName: "Ready", slug: "ready-test" } })).body.project;
    const list = () => call(url, "GET", `/api/v4/secrets?projectId=${project.id}&environment=dev&secretPath=/`, { token });
    expect((await call(url, "GET", "/api/status/ready")).status).toBe(200);

    await proxy.down();
    await expect.poll(async () => (await call(url, "GET", "/api/status/ready")).status, { timeout: 10_000 }).toBe(503);
    const away = await call(url, "GET", "/api/status/ready");
    expect(away.body.message).toMatch(/event relay|database/);
    const during = await list();
    expect(during.status).toBe(503);
    expect(during.body).toMatchObject({ error: "ServiceUnavailable", message: expect.stringMatching(/^The database is not reachable/) });
    expect((await call(url, "GET", "/api/status")).status).toBe(200);

    // The outage shows in the metrics: failed storage calls, and the pool's connections.
    const metrics = await (await fetch(running.metrics!.url)).text();
    expect(metrics).toMatch(/^strongroom_db_query_duration_seconds_count\{operation="\w+",outcome="error"\} [1-9]/m);
    expect(metrics).toMatch(/^strongroom_db_pool_connections\{state="total"\} \d+$/m);
    expect(metrics).toMatch(/^strongroom_http_requests_total\{method="GET",route="\/api\/status\/ready",status="503"\} [1-9]/m);

    await proxy.up();
    await expect.poll(async () => (await call(url, "GET", "/api/status/ready")).status, { timeout: 20_000, interval: 200 }).toBe(200);
    expect((await list()).status).toBe(200);
  }, 60_000);
});
