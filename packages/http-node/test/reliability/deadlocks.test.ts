import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createProject, startApi, type TestApi, type World } from "../../src/testing/harness.js";

const BATCHES = 50;
const SECRETS = 20;

/** A deterministic shuffle, so a failure replays with the same orders. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed * 2654435761 + 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * 50 batch updates of the same secrets, each naming them in its own order, sent at once. Every
 * one must be answered 200 (no deadlock surfaces as a 500, no write is refused as concurrent) and
 * every secret must end with one version per batch.
 */
describe.each(backends)("overlapping batch updates on %s", (backend) => {
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

  it(`answers all ${BATCHES} batches 200 and files every change`, async (ctx) => {
    if (!available) return ctx.skip();
    const project = await createProject(api, world.admin.token);
    const keys = Array.from({ length: SECRETS }, (_, i) => `SHARED_${i}`);
    const created = await api.request("POST", "/api/v4/secrets/batch", {
      token: world.admin.token,
      body: { projectId: project.id, environment: "dev", secrets: keys.map((secretKey) => ({ secretKey, secretValue: "initial" })) },
    });
    expect(created.status).toBe(200);

    const answers = await Promise.all(
      Array.from({ length: BATCHES }, (_, batch) =>
        api.request("PATCH", "/api/v4/secrets/batch", {
          token: world.admin.token,
          body: {
            projectId: project.id,
            environment: "dev",
            secrets: shuffled(keys, batch + 1).map((secretKey) => ({ secretKey, secretValue: `batch-${batch}` })),
          },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    const logged = api.logs.filter((line) => line.includes('"level":"error"')).slice(0, 2);
    expect(statuses.filter((s) => s >= 500), logged.join("\n")).toEqual([]);
    expect(statuses).toEqual(Array(BATCHES).fill(200));

    const listed = await api.request("GET", `/api/v4/secrets?projectId=${project.id}&environment=dev&secretPath=/`, { token: world.admin.token });
    const versions = new Set((listed.body.secrets as { version: number }[]).map((s) => s.version));
    expect([...versions]).toEqual([BATCHES + 1]);
    // The batches were serialized: every secret holds the value of the same, last, batch.
    expect(new Set((listed.body.secrets as { secretValue: string }[]).map((s) => s.secretValue)).size).toBe(1);
  });
});
