import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateRootKey } from "@strongroom/core";
import { createStrongroomServer, silentLogger, type StrongroomServer } from "@strongroom/http-node";
import { terminateSessions, withPostgres, type TestDatabase } from "@strongroom/storage-postgres/testing";
import { call } from "../helpers/spawn-server.js";

/** The bus's listening session (storage-postgres `LISTENER_APPLICATION_NAME`) and the pools' sessions. */
const LISTENER = "strongroom-bus";
const POOL = "strongroom";

interface Stream {
  status: number;
  /** Everything the server wrote, once the stream has ended. */
  text: Promise<string>;
  /** Resolves once `pattern` has been received. */
  received(pattern: RegExp): Promise<void>;
}

async function subscribe(url: string, token: string, projectId: string): Promise<Stream> {
  const res = await fetch(`${url}/api/v1/events/subscribe/project-events`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ projectId, register: [{ event: "secret:create", conditions: { environmentSlug: "dev", secretPath: "/**" } }] }),
  });
  let seen = "";
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const text = (async () => {
    if (!res.body || res.status !== 200) return res.text();
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      seen += decoder.decode(chunk as Uint8Array, { stream: true });
      for (const waiter of waiters.filter((w) => w.pattern.test(seen))) waiter.resolve();
    }
    return seen;
  })();
  return {
    status: res.status,
    text,
    received: (pattern) => (pattern.test(seen) ? Promise.resolve() : new Promise((resolve) => waiters.push({ pattern, resolve }))),
  };
}

/**
 * Faults of PostgreSQL seen by two nodes: the relay's listening session and then every session of
 * the nodes killed with pg_terminate_backend. Streams are told of the gap and closed; requests
 * during the outage get 503 (never 500); once the connections are back, everything works again.
 */
describe("PostgreSQL sessions terminated", () => {
  const dirs: string[] = [];
  let pg: TestDatabase;
  let nodes: StrongroomServer[] = [];
  let token = "";
  let projectId = "";

  beforeAll(async () => {
    pg = await withPostgres();
    if (!pg.available) return;
    const rootKey = generateRootKey();
    for (let i = 0; i < 2; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), "strongroom-pgfault-"));
      dirs.push(dataDir);
      nodes.push(
        await createStrongroomServer({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, DATABASE_URL: pg.url, STRONGROOM_ROOT_KEY: rootKey }, { logger: silentLogger }),
      );
    }
    const setup = await call(nodes[0].url, "POST", "/api/v1/admin/bootstrap", { body: { email: "fault@example.com", password: "a long password", organization: "Faults" } });
    token = setup.body.identity.credentials.token;
    projectId = (await call(nodes[0].url, "POST", "/api/v1/projects", { token, body: { projectName: "Faults", slug: "faults-test" } })).body.project.id;
  });
  afterAll(async () => {
    for (const node of nodes) await node.close();
    nodes = [];
    if (pg?.available) await pg.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const create = (node: StrongroomServer, secretKey: string) =>
    call(node.url, "POST", `/api/v4/secrets/${secretKey}`, { token, body: { projectId, environment: "dev", secretValue: "v" } });

  /** Subscribes on a node, retrying while its relay reconnects (503). */
  const subscribeWhenReady = async (node: StrongroomServer): Promise<Stream> => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const stream = await subscribe(node.url, token, projectId);
      if (stream.status === 200) return stream;
      expect(stream.status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("the node never took a subscription again");
  };

  it("ends the streams on every node, the writer's too, with event: error when the relay's session is killed", async (ctx) => {
    if (!pg.available) return ctx.skip();
    const streams = [await subscribe(nodes[0].url, token, projectId), await subscribe(nodes[1].url, token, projectId)];
    expect(streams.map((s) => s.status)).toEqual([200, 200]);
    expect((await create(nodes[0], "BEFORE_GAP")).status).toBe(200);
    await Promise.all(streams.map((s) => s.received(/BEFORE_GAP/)));

    expect(await terminateSessions(pg.url, LISTENER)).toBe(2);
    for (const stream of streams) {
      expect(await stream.text).toMatch(
        /event: error\ndata: \{"statusCode":503,"error":"ServiceUnavailable","message":"The event relay lost its PostgreSQL connection; events may have been missed"\}\n\n$/,
      );
    }

    // Once the relay is back, new streams get what is written, on either node.
    const again = [await subscribeWhenReady(nodes[0]), await subscribeWhenReady(nodes[1])];
    expect((await create(nodes[1], "AFTER_GAP")).status).toBe(200);
    await Promise.all(again.map((s) => s.received(/AFTER_GAP/)));
  }, 60_000);

  it("answers 200 or 503, never 500, while every session of the nodes is killed under load, then recovers", async (ctx) => {
    if (!pg.available) return ctx.skip();
    const outcomes: number[] = [];
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const key = `LOAD_${n}_${i}`;
        const res = await create(nodes[n % 2], key);
        outcomes.push(res.status);
        if (res.status === 200) acknowledged.push(key);
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await terminateSessions(pg.url, POOL);
    await terminateSessions(pg.url, LISTENER);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await terminateSessions(pg.url);
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop = true;
    await Promise.all(writers);

    console.log(`statuses: ${JSON.stringify(Object.entries(outcomes.reduce<Record<number, number>>((m, s) => ((m[s] = (m[s] ?? 0) + 1), m), {})))}`);
    expect(outcomes.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(outcomes.filter((status) => status === 200).length).toBeGreaterThan(0);
    // Recovered: writes work on both nodes, and every acknowledged write is there.
    expect((await create(nodes[0], "RECOVERED_0")).status).toBe(200);
    expect((await create(nodes[1], "RECOVERED_1")).status).toBe(200);
    const listed = await call(nodes[1].url, "GET", `/api/v4/secrets?projectId=${projectId}&environment=dev&secretPath=/`, { token });
    const stored = new Set((listed.body.secrets as { secretKey: string }[]).map((s) => s.secretKey));
    expect(acknowledged.filter((key) => !stored.has(key))).toEqual([]);
  }, 60_000);
});
