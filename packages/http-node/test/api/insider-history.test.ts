import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, expectError, startApi, type ApiResponse, type TestApi, type World } from "../../src/testing/harness.js";
import { insiderScene, query, type Denied } from "./insider-scene.js";

/**
 * Issue 15, principle 2: history is the secret. Reading any version requires read access to the
 * secret as it is now and as it was then; a secret tagged, renamed or (by admin) moved into a
 * deny scope does not stay readable through its earlier versions, on the v4 and v3 raw routes.
 */
describe.each(backends)("version reads need the secret readable now and then, on %s", (backend) => {
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
  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  const routes = [
    (s: { projectId: string }, name: string, params: Record<string, string | number>) =>
      `/api/v4/secrets/${name}${query({ projectId: s.projectId, environment: "dev", ...params })}`,
    (s: { projectId: string }, name: string, params: Record<string, string | number>) =>
      `/api/v3/secrets/raw/${name}${query({ workspaceId: s.projectId, environment: "dev", ...params })}`,
  ];

  for (const denied of ["read", "readValue"] as Denied[]) {
    const refusedOrHidden = (res: ApiResponse) => {
      if (denied === "read") expectError(res, 403, "PermissionDenied");
      else expect(res.body.secret).toMatchObject({ secretValue: "", secretValueHidden: true });
    };

    maybe(`${denied} denied: a secret tagged into the deny is not readable through its old versions`, async () => {
      const s = await insiderScene(api, world, denied);
      await s.ok("POST", "/api/v4/secrets/DB_PASS", { projectId: s.projectId, environment: "dev", secretValue: "v1-plain" });
      await s.ok("PATCH", "/api/v4/secrets/DB_PASS", { projectId: s.projectId, environment: "dev", secretValue: "v2-tagged", tagIds: [s.tagIds.pci] });
      for (const route of routes) {
        refusedOrHidden(await s.call("GET", route(s, "DB_PASS", { version: 1 })));
        refusedOrHidden(await s.call("GET", route(s, "DB_PASS", {})));
      }
    });

    maybe(`${denied} denied: a secret renamed into the deny is not readable through its old versions`, async () => {
      const s = await insiderScene(api, world, denied);
      await s.ok("POST", "/api/v4/secrets/STRIPE", { projectId: s.projectId, environment: "dev", secretValue: "v1-before" });
      await s.ok("PATCH", "/api/v4/secrets/STRIPE", { projectId: s.projectId, environment: "dev", newSecretName: "STRIPE_LIVE_KEY" });
      await s.ok("PATCH", "/api/v4/secrets/STRIPE_LIVE_KEY", { projectId: s.projectId, environment: "dev", secretValue: "v3-live" });
      for (const route of routes) {
        for (const version of [1, 2, 3]) refusedOrHidden(await s.call("GET", route(s, "STRIPE_LIVE_KEY", { version })));
        // The old name is gone: a plain 404, it was describable.
        expectError(await s.call("GET", route(s, "STRIPE", { version: 1 })), 404);
      }
    });

    maybe(`${denied} denied: an old version that was in the deny stays unreadable after the secret left it`, async () => {
      const s = await insiderScene(api, world, denied);
      await s.ok("POST", "/api/v4/secrets/FORMER", { projectId: s.projectId, environment: "dev", secretValue: "v1-card", tagIds: [s.tagIds.pci] });
      await s.ok("PATCH", "/api/v4/secrets/FORMER", { projectId: s.projectId, environment: "dev", secretValue: "v2-public", tagIds: [] });
      for (const route of routes) {
        refusedOrHidden(await s.call("GET", route(s, "FORMER", { version: 1 })));
        const now = await s.call("GET", route(s, "FORMER", { version: 2 }));
        expect(now.body.secret).toMatchObject({ secretValue: "v2-public", version: 2 });
      }
    });
  }

  maybe("a missing version of a secret it may not describe is refused, not reported missing", async () => {
    const s = await insiderScene(api, world, "read");
    for (const route of routes) {
      expectError(await s.call("GET", route(s, "CARD", { version: 1 })), 403);
      expectError(await s.call("GET", route(s, "CARD", { version: 99 })), 403);
      expectError(await s.call("GET", route(s, "OPEN", { version: 99 })), 404);
    }
  });
});
