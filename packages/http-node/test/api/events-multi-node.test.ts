import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateRootKey } from "@strongroom/core";
import { withPostgres, type TestDatabase } from "@strongroom/storage-postgres/testing";
import { call, spawnServer, type ServerProcess } from "../helpers/spawn-server.js";
import { itemsOf, openEventStream } from "./events-client.js";

describe("event subscriptions across two server processes on one PostgreSQL database", () => {
  let db: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    db = await withPostgres();
    if (!db.available) return;
    const env = { DATABASE_URL: db.url, STRONGROOM_ROOT_KEY: generateRootKey() };
    a = await spawnServer(env);
    b = await spawnServer(env);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    if (db.available) await db.drop();
  });

  it("delivers a secret written through node A to subscribers on node B and on A", async (ctx) => {
    if (!db.available) return ctx.skip();
    const setup = await call(a.url, "POST", "/api/v1/admin/bootstrap", {
      body: { email: "ops@example.com", password: "a long password", organization: "Nodes" },
    });
    const token = setup.body.identity.credentials.token as string;
    const { body } = await call(a.url, "POST", "/api/v1/projects", { token, body: { projectName: "Shared" } });
    const projectId = body.project.id as string;
    const register = [{ event: "secret:create", conditions: { secretPath: "/**" } }];
    const onB = await openEventStream(b.url, token, { projectId, register });
    const onA = await openEventStream(a.url, token, { projectId, register });
    try {
      expect([onB.status, onA.status]).toEqual([200, 200]);
      const write = await call(a.url, "POST", "/api/v4/secrets/CROSS_NODE", { token, body: { projectId, environment: "prod", secretValue: "v" } });
      expect(write.status).toBe(200);
      const [fromB, fromA] = [await onB.next(), await onA.next()];
      for (const frame of [fromB, fromA]) {
        expect([frame.id, frame.event, itemsOf(frame)]).toEqual(["1", "secret:create", ["prod:/:CROSS_NODE"]]);
      }
    } finally {
      onA.close();
      onB.close();
    }
  });
});
