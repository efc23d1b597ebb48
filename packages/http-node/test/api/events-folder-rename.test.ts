import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itemsOf, openEventStream, type EventStreamClient } from "./events-client.js";
import { backendAvailable, backends, bootstrap, createProject, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * A folder rename moves every secret below it to a new path. SPEC.md's event kinds have no "moved",
 * so subscribers see each moved secret leave its old path (`secret:delete`) and arrive at its new
 * one (`secret:create`), one event per kind and folder, each delivered only to the streams whose
 * path glob covers it.
 */
describe.each(backends)("folder rename events on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let n = 0;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()), 30_000);

  async function ok(pending: Promise<{ status: number; body: any }>) {
    const res = await pending;
    if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A project with /apps/api holding secrets at both levels. */
  async function scene() {
    const projectId = (await createProject(api, world.admin.token, { projectName: `Rename ${++n}` })).id;
    const token = world.admin.token;
    const apps = (await ok(api.request("POST", "/api/v1/folders", { token, body: { projectId, environment: "dev", path: "/", name: "apps" } }))).folder;
    await ok(api.request("POST", "/api/v1/folders", { token, body: { projectId, environment: "dev", path: "/apps", name: "api" } }));
    await ok(api.request("POST", "/api/v4/secrets/batch", { token, body: { projectId, environment: "dev", secretPath: "/apps", secrets: [{ secretKey: "A", secretValue: "a" }] } }));
    await ok(api.request("POST", "/api/v4/secrets/batch", { token, body: { projectId, environment: "dev", secretPath: "/apps/api", secrets: [{ secretKey: "B", secretValue: "b" }, { secretKey: "C", secretValue: "c" }] } }));
    const subscribe = (secretPath: string) =>
      openEventStream(api.url, token, { projectId, register: [{ event: "secret:create", conditions: { secretPath } }, { event: "secret:delete", conditions: { secretPath } }] });
    const rename = (body: Record<string, unknown>) => api.request("PATCH", `/api/v1/folders/${apps.id}`, { token, body: { projectId, environment: "dev", ...body } });
    return { projectId, subscribe, rename };
  }

  /** `kind dev:path:key…` for each of the next `count` frames (pings left out). */
  async function frames(stream: EventStreamClient, count: number): Promise<string[]> {
    const seen: string[] = [];
    while (seen.length < count) {
      const m = await stream.next();
      seen.push(`${m.event} ${itemsOf(m).join(" ")}`);
    }
    return seen;
  }

  maybe("a rename announces each moved secret as deleted at its old path and created at its new one", async () => {
    const { subscribe, rename } = await scene();
    const [everything, oldSide, newSide] = await Promise.all([subscribe("/**"), subscribe("/apps/**"), subscribe("/services/**")]);
    await ok(rename({ name: "services" }));
    expect(await frames(everything, 4)).toEqual([
      "secret:delete dev:/apps:A",
      "secret:create dev:/services:A",
      "secret:delete dev:/apps/api:B dev:/apps/api:C",
      "secret:create dev:/services/api:B dev:/services/api:C",
    ]);
    expect(await frames(oldSide, 2)).toEqual(["secret:delete dev:/apps:A", "secret:delete dev:/apps/api:B dev:/apps/api:C"]);
    expect(await frames(newSide, 2)).toEqual(["secret:create dev:/services:A", "secret:create dev:/services/api:B dev:/services/api:C"]);
    for (const stream of [everything, oldSide, newSide]) stream.close();
  });

  maybe("a description change, and a refused rename, announce nothing", async () => {
    const { projectId, subscribe, rename } = await scene();
    const stream = await subscribe("/**");
    await ok(rename({ description: "only the description" }));
    await ok(api.request("POST", "/api/v1/folders", { token: world.admin.token, body: { projectId, environment: "dev", path: "/", name: "taken" } }));
    expect((await rename({ name: "taken" })).status).toBe(400);
    // The next write is the first thing the stream sees.
    await ok(api.request("POST", "/api/v4/secrets/MARKER", { token: world.admin.token, body: { projectId, environment: "dev", secretValue: "m" } }));
    expect(await frames(stream, 1)).toEqual(["secret:create dev:/:MARKER"]);
    stream.close();
  });
});
