import { randomUUID } from "node:crypto";
import { AUDIT_EVENT_TYPES, UNAUDITED_OPERATIONS } from "@strongroom/core/maintenance";
import { storedAuditRows } from "@strongroom/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../src/routes/index.js";
import { backendAvailable, backends, bootstrap, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Every route of the server is recorded: walking the route table, each request (with ids that
 * exist nowhere, so nothing is changed) produces exactly one audit entry, under the operation's
 * event type, naming the caller, with the outcome its status says. A route whose operation has no
 * event type fails here first.
 */
const keyOf = (api: TestApi) => {
  const keys = new Map<unknown, string>();
  for (const [area, ops] of Object.entries(api.strongroom.operations)) for (const [name, def] of Object.entries(ops)) keys.set(def, `${area}.${name}`);
  return keys;
};

const outcomeFor = (status: number) => (status < 300 ? "success" : status === 401 || status === 403 ? "denied" : "failed");

describe("every route is audited", () => {
  it("names an event type for every routed operation", async () => {
    const api = await startApi("sqlite");
    try {
      const keys = keyOf(api);
      const unlisted = routes.map((r) => keys.get(r.operation)!).filter((k) => !UNAUDITED_OPERATIONS.has(k) && !AUDIT_EVENT_TYPES[k]);
      expect(unlisted).toEqual([]);
    } finally {
      await api.close();
    }
  });

  for (const backend of backends) {
    describe(backend, () => {
      let api: TestApi;
      let world: World;
      let available = true;
      beforeAll(async () => {
        available = await backendAvailable(backend);
        if (!available) return;
        api = await startApi(backend);
        world = await bootstrap(api);
      });
      afterAll(async () => {
        if (available) await api.close();
      });

      it("writes exactly one entry per request, with the right type, actor and outcome", async (ctx) => {
        if (!available) return ctx.skip();
        const keys = keyOf(api);
        const entries = () => storedAuditRows(api.strongroom.context.storage);
        const problems: string[] = [];
        const outcomes = new Map<string, number>();
        let seen = new Set((await entries()).map((row) => row.id));
        for (const route of routes) {
          const key = keys.get(route.operation)!;
          if (UNAUDITED_OPERATIONS.has(key)) continue;
          const path = route.path.replace(/\{[^}]+\}/g, () => randomUUID());
          const res = await api.request(route.method, path, { token: world.admin.token, ...(route.method === "GET" || route.method === "DELETE" ? {} : { body: {} }) });
          await api.strongroom.audit.flush();
          const all = await entries();
          const added = all.filter((row) => !seen.has(row.id));
          seen = new Set(all.map((row) => row.id));
          const label = `${route.method} ${route.path} (${key}, ${res.status})`;
          if (added.length !== 1) {
            problems.push(`${label}: ${added.length} entries`);
            continue;
          }
          const [entry] = added;
          const expected = { eventType: AUDIT_EVENT_TYPES[key].type, actorType: "identity", actorId: world.admin.identityId, outcome: outcomeFor(res.status) };
          const got = { eventType: entry.eventType, actorType: entry.actorType, actorId: entry.actorId, outcome: entry.outcome };
          if (JSON.stringify(got) !== JSON.stringify(expected)) problems.push(`${label}: got ${JSON.stringify(got)}`);
          outcomes.set(entry.outcome, (outcomes.get(entry.outcome) ?? 0) + 1);
        }
        expect(problems).toEqual([]);
        // The walk reached operations that answered, refused and failed.
        expect(Object.fromEntries(outcomes)).toMatchObject({ success: expect.any(Number), failed: expect.any(Number), denied: expect.any(Number) });
      });

      it("records a request with an unknown token once, in the instance chain", async (ctx) => {
        if (!available) return ctx.skip();
        const instance = () => storedAuditRows(api.strongroom.context.storage, "instance");
        const before = (await instance()).length;
        const res = await api.request("GET", "/api/v1/projects", { token: "not-a-token" });
        expect(res.status).toBe(401);
        await api.strongroom.audit.flush();
        const rows = await instance();
        expect(rows.length - before).toBe(1);
        expect(rows.at(-1)).toMatchObject({ eventType: "authenticate-token", outcome: "denied", actorType: "unknownUser", count: 1 });
      });

      it("counts a flood of anonymous failures as one entry per address and minute, whatever they name", async (ctx) => {
        if (!available) return ctx.skip();
        const entries = () => storedAuditRows(api.strongroom.context.storage);
        const before = (await entries()).length;
        const target = `/api/v4/secrets?projectId=${randomUUID()}&environment=dev`;
        for (let i = 0; i < 30; i++) expect((await api.request("GET", target)).status).toBe(401);
        for (let i = 0; i < 5; i++) await api.request("POST", "/api/v1/auth/login", { body: { email: world.admin.email, password: `wrong-${i}` } });
        await api.strongroom.audit.flush();
        const added = (await storedAuditRows(api.strongroom.context.storage, "instance")).slice(-2);
        expect((await entries()).length - before).toBe(2);
        expect(added.map((e) => [e.eventType, e.outcome, e.count])).toEqual([
          ["get-secrets", "denied", 30],
          ["user-login", "denied", 5],
        ]);
        const logins = await api.strongroom.audit.verify({ chain: "instance" });
        expect(logins).toMatchObject({ ok: true });
      });
    });
  }
});
