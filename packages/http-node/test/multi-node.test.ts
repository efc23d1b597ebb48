import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStrongroom, generateRootKey, ManualClock, type Strongroom } from "@strongroom/core";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { withPostgres, type TestDatabase } from "@strongroom/storage-postgres/testing";
import { call, spawnServer, type ServerProcess } from "./helpers/spawn-server.js";

const HOUR = 60 * 60 * 1000;

describe("several nodes on one PostgreSQL database", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await withPostgres();
  });
  afterAll(async () => {
    if (db.available) await db.drop();
  });

  it("runs each period of a scheduled job on exactly one node", async (ctx) => {
    if (!db.available) return ctx.skip();
    const rootKey = generateRootKey();
    const clock = new ManualClock("2026-03-01T00:00:00Z");
    const nodes: Strongroom[] = [];
    for (let i = 0; i < 3; i++) {
      nodes.push(await createStrongroom({ storage: await createPostgresStorage({ connectionString: db.url }), rootKey, clock }));
    }
    try {
      for (let period = 0; period < 4; period++) {
        const ran = await Promise.all(nodes.map((node) => node.scheduler.runDue()));
        expect(ran.flat().filter((job) => job === "housekeeping")).toHaveLength(1);
        // within the same period nobody runs it again
        const again = await Promise.all(nodes.map((node) => node.scheduler.runDue()));
        expect(again.flat()).not.toContain("housekeeping");
        clock.advance(HOUR);
      }
      const runs = await nodes[0].context.storage.tables.jobRuns.find({ job: "housekeeping" });
      expect(runs).toHaveLength(4);
      expect(runs.every((r) => r.finishedAt && r.error === null)).toBe(true);
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  });

  describe("two server processes started together on a new database", () => {
    let fresh: TestDatabase;
    let a: ServerProcess;
    let b: ServerProcess;
    beforeAll(async () => {
      fresh = await withPostgres();
      if (!fresh.available) return;
      const env = { DATABASE_URL: fresh.url, STRONGROOM_ROOT_KEY: generateRootKey(), STRONGROOM_SCHEDULER_TICK_MS: "100" };
      [a, b] = await Promise.all([spawnServer(env), spawnServer(env)]);
    });
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      if (fresh.available) await fresh.drop();
    });

    it("behave as one service: a write on one is read on the other", async (ctx) => {
      if (!db.available) return ctx.skip();
      const setup = await call(a.url, "POST", "/api/v1/admin/bootstrap", {
        body: { email: "ops@example.com", password: "a long password", organization: "Nodes" },
      });
      expect(setup.status).toBe(200);
      const token = setup.body.identity.credentials.token;
      const created = await call(a.url, "POST", "/api/v1/projects", { token, body: { projectName: "Shared", slug: "shared-project" } });
      expect(created.status).toBe(200);
      // the token issued by node A authenticates on node B, and B sees A's project
      const roles = await call(b.url, "GET", `/api/v2/workspace/${created.body.project.id}/roles`, { token });
      expect(roles.status).toBe(200);
      const twice = await call(b.url, "POST", "/api/v1/projects", { token, body: { projectName: "Shared", slug: "shared-project" } });
      expect(twice.status).toBe(400);
      // bootstrapping again on the other node is refused too
      expect((await call(b.url, "POST", "/api/v1/admin/bootstrap", { body: { email: "x@example.com", password: "a long password", organization: "X" } })).status).toBe(400);
    });

    it("run the scheduled job of a period once across both", async (ctx) => {
      if (!db.available) return ctx.skip();
      // both nodes tick every 100 ms; give them many chances to race
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const storage = await createPostgresStorage({ connectionString: fresh.url });
      try {
        const runs = await storage.tables.jobRuns.find({ job: "housekeeping" });
        expect(runs).toHaveLength(1);
      } finally {
        await storage.close();
      }
    });
  });
});
