import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateRootKey } from "@strongroom/core";
import { withPostgres, type TestDatabase } from "@strongroom/storage-postgres/testing";
import { call, spawnServer, type ServerProcess } from "../helpers/spawn-server.js";

const BATCHES = 20;
const ITEMS = 100;

/** An event stream read to its end: everything the server wrote on it. */
async function openStream(url: string, token: string, projectId: string): Promise<{ opened: number; text: Promise<string> }> {
  const res = await fetch(`${url}/api/v1/events/subscribe/project-events`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ projectId, register: [{ event: "secret:create", conditions: { environmentSlug: "dev", secretPath: "/**" } }] }),
  });
  return { opened: res.status, text: res.text().catch((error: Error) => `(stream failed: ${error.message})`) };
}

/**
 * SIGTERM while the node is busy: batches sent together just before the signal, a trickle of
 * requests during the drain, and open event streams. Every request sent before the signal gets an
 * HTTP answer; readiness turns 503; each stream ends with `event: error` and does not hold the drain.
 */
async function sigtermUnderLoad(env: Record<string, string>): Promise<void> {
  const server: ServerProcess = await spawnServer({ STRONGROOM_DRAIN_TIMEOUT_MS: "60000", ...env });
  const setup = await call(server.url, "POST", "/api/v1/admin/bootstrap", {
    body: { email: "drain@example.com", password: "a long password", organization: "Drain" },
  });
  const token = setup.body.identity.credentials.token as string;
  const project = (await call(server.url, "POST", "/api/v1/projects", { token, body: { projectName: "Drain", slug: "drain-test" } })).body.project;
  expect((await call(server.url, "GET", "/api/status/ready")).status).toBe(200);

  const streams = await Promise.all([1, 2, 3].map(() => openStream(server.url, token, project.id)));
  expect(streams.map((s) => s.opened)).toEqual([200, 200, 200]);

  const outcome = (request: Promise<{ status: number }>) => request.then((res) => res.status, (error: Error) => `${error.message} ${String((error.cause as Error)?.message ?? "")}`);
  const batches = Array.from({ length: BATCHES }, (_, b) =>
    outcome(
      call(server.url, "POST", "/api/v4/secrets/batch", {
        token,
        body: {
          projectId: project.id,
          environment: "dev",
          secrets: Array.from({ length: ITEMS }, (_, i) => ({ secretKey: `B${b}_${i}`, secretValue: `value-${i}` })),
        },
      }),
    ),
  );
  // Written to the sockets before the signal: the requests are on their way, not yet accepted.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const exited = server.stop();

  // Requests keep arriving during the drain; each one sent before the listener closes is answered.
  const trickle: Promise<number | string>[] = [];
  let readyDuringDrain: number | string | undefined;
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    trickle.push(outcome(call(server.url, "GET", `/api/v4/secrets?projectId=${project.id}&environment=dev&secretPath=/`, { token })));
    const ready = await outcome(call(server.url, "GET", "/api/status/ready"));
    if (ready !== 200) readyDuringDrain ??= ready;
  }

  expect(await Promise.all(batches)).toEqual(Array(BATCHES).fill(200));
  const trickled = await Promise.all(trickle);
  expect(trickled.filter((s) => s !== 200)).toEqual([]);
  expect(readyDuringDrain).toBe(503);
  for (const stream of streams) {
    const text = await stream.text;
    expect(text).toMatch(/event: error\ndata: \{"statusCode":503,"error":"ServiceUnavailable","message":"The server is shutting down; reconnect"\}\n\n$/);
  }
  expect(await exited).toBe(0);

  // Nothing acknowledged was lost: every batch is there whole after a restart on the same storage.
  const again = await spawnServer(env);
  try {
    const listed = await call(again.url, "GET", `/api/v4/secrets?projectId=${project.id}&environment=dev&secretPath=/`, { token });
    expect(listed.body.secrets).toHaveLength(BATCHES * ITEMS);
  } finally {
    await again.stop();
  }
}

describe("SIGTERM under load drains", () => {
  const dirs: string[] = [];
  let pg: TestDatabase | undefined;
  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    if (pg?.available) await pg.drop();
  });

  it("answers every request sent before the signal, on SQLite", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-drain-"));
    dirs.push(dataDir);
    await sigtermUnderLoad({ DATA_DIR: dataDir });
  }, 120_000);

  it("answers every request sent before the signal, on PostgreSQL", async (ctx) => {
    pg = await withPostgres();
    if (!pg.available) return ctx.skip();
    await sigtermUnderLoad({ DATABASE_URL: pg.url, STRONGROOM_ROOT_KEY: generateRootKey() });
  }, 120_000);
});
