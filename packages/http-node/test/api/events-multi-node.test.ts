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
  /** The deployment's admin identity: bootstrapped once (an instance accepts one bootstrap), shared by the tests. */
  let admin: Promise<{ token: string; orgId: string }> | undefined;
  const adminOf = () =>
    (admin ??= call(a.url, "POST", "/api/v1/admin/bootstrap", {
      body: { email: "ops@example.com", password: "a long password", organization: "Nodes" },
    }).then((setup) => ({ token: setup.body.identity.credentials.token as string, orgId: setup.body.organization.id as string })));

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    if (db.available) await db.drop();
  });

  it("delivers a secret written through node A to subscribers on node B and on A", async (ctx) => {
    if (!db.available) return ctx.skip();
    const { token } = await adminOf();
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

  it("ends a stream on node B within the access bound when its membership is removed through node A (the relay announces access changes)", async (ctx) => {
    if (!db.available) return ctx.skip();
    const { token, orgId } = await adminOf();
    const projectId = (await call(a.url, "POST", "/api/v1/projects", { token, body: { projectName: "Watched across nodes" } })).body.project.id as string;
    const identityId = (await call(a.url, "POST", "/api/v1/identities", { token, body: { name: "watcher", organizationId: orgId } })).body.identity.id as string;
    const ua = await call(a.url, "POST", `/api/v1/auth/universal-auth/identities/${identityId}`, { token, body: {} });
    const secret = await call(a.url, "POST", `/api/v1/auth/universal-auth/identities/${identityId}/client-secrets`, { token, body: {} });
    const login = await call(a.url, "POST", "/api/v1/auth/universal-auth/login", { body: { clientId: ua.body.identityUniversalAuth.clientId, clientSecret: secret.body.clientSecret } });
    await call(a.url, "POST", `/api/v2/workspace/${projectId}/identity-memberships/${identityId}`, { token, body: { role: "viewer" } });
    const onB = await openEventStream(b.url, login.body.accessToken, { projectId, register: [{ event: "secret:create", conditions: { secretPath: "/**" } }] });
    try {
      expect(onB.status).toBe(200);
      expect((await call(a.url, "DELETE", `/api/v2/workspace/${projectId}/identity-memberships/${identityId}`, { token })).status).toBe(200);
      const last = await onB.next(15_000);
      expect([last.event, JSON.parse(last.data).statusCode]).toEqual(["error", 403]);
      await onB.ended;
    } finally {
      onB.close();
    }
  }, 60_000);
});
