import { createHash } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes, type Route } from "@strongroom/http-node";
import { queryKeys } from "../../src/input.js";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, startApi, type Backend, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Requests per route; every route of the table is fuzzed, so new routes are covered as they land.
 * PostgreSQL gets fewer: each refused request is followed by a read of every table.
 */
const RUNS_PER_ROUTE: Record<Backend, number> = {
  sqlite: Number(process.env.FUZZ_RUNS_PER_ROUTE ?? 25),
  postgres: Number(process.env.FUZZ_RUNS_PER_ROUTE ?? 8),
};

/** A digest of every row of every table: a refused request must leave it unchanged (but for its audit entry, which it must add). */
async function storageDigest(api: TestApi): Promise<string> {
  const hash = createHash("sha256");
  const tables = api.strongroom.context.storage.tables as unknown as Record<string, { find(): Promise<{ id: string }[]> }>;
  for (const name of Object.keys(tables).sort()) {
    if (name.startsWith("audit")) continue;
    const rows = await tables[name].find();
    rows.sort((a, b) => (a.id < b.id ? -1 : 1));
    hash.update(name).update(JSON.stringify(rows));
  }
  return hash.digest("hex");
}

const nasty = fc.constantFrom("", " ", "..", "%2e%2e", "null", "undefined", "0", "-1", "'; drop table users; --", "\u0000", "a".repeat(3000), "😀", "__proto__", "constructor");

const pathParams = (route: Route) => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

describe.each(backends)("fuzzing every route on %s", (backend) => {
  let available = true;
  let api: TestApi;
  let world: World;
  let known: string[];
  let memberToken: string;
  let fuzzed = 0;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    const project = await createProject(api, world.admin.token, { slug: "fuzz-target" });
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "fuzz-bot");
    const member = await createUser(api, world.admin.token, world.admin.orgId, "fuzz-member@acme.test");
    memberToken = member.token;
    // real ids and names, so generated requests also reach the code behind the lookups
    known = [project.id, project.slug, world.admin.orgId, bot.identityId, member.userId, "dev", "/", "admin", "member"];
  });
  afterAll(async () => {
    if (!available) return;
    await api.close();
    console.log(`fuzz (${backend}): ${fuzzed} requests over ${routes.length} routes`);
  });

  const candidates = routes.filter((r) => r.kind !== "sse");

  it.for(candidates.map((r) => [`${r.method} ${r.path}`, r] as const))("%s never fails with a 5xx and never changes data when refused", async ([, route], ctx) => {
    if (!available) return ctx.skip();
    const tokens = [world.admin.token, memberToken, undefined, "srt_garbage"];
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          params: fc.array(fc.oneof(fc.constantFrom(...known), fc.uuid(), nasty, fc.string()), { minLength: 3, maxLength: 3 }),
          query: fc.dictionary(fc.constantFrom(...queryKeys(route), "x", "recursive", "limit"), fc.oneof(fc.string(), fc.constantFrom(...known), nasty)),
          body: fc.oneof(
            fc.jsonValue(),
            fc.dictionary(fc.string(), fc.jsonValue()),
            fc.record({ projectId: fc.constantFrom(...known), name: fc.string(), slug: fc.string(), environment: fc.constantFrom("dev", "prod", ""), secrets: fc.jsonValue() }, { requiredKeys: [] }),
          ),
          token: fc.constantFrom(...tokens),
          raw: fc.option(fc.constantFrom("{", "[1,", "\u0000", '{"a":'), { nil: undefined }),
        }),
        async (input) => {
          const names = pathParams(route);
          const path =
            route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(input.params[names.indexOf(name) % 3] ?? "x")) +
            (Object.keys(input.query).length ? `?${new URLSearchParams(input.query as Record<string, string>)}` : "");
          const before = await storageDigest(api);
          const withBody = route.method !== "GET";
          const res = await api.request(route.method, path, {
            token: input.token,
            ...(withBody ? (input.raw !== undefined ? { raw: input.raw, headers: { "content-type": "application/json" } } : { body: input.body }) : {}),
          });
          fuzzed++;
          expect(res.status, `${route.method} ${path} → ${JSON.stringify(res.body)}`).toBeLessThan(500);
          if (res.status >= 400) {
            expect(res.body).toMatchObject({ statusCode: res.status, reqId: expect.stringMatching(/^req-[A-Za-z0-9]{14}$/), error: expect.any(String) });
            expect(await storageDigest(api)).toBe(before);
          }
        },
      ),
      { numRuns: RUNS_PER_ROUTE[backend], seed: Number(process.env.FUZZ_SEED ?? 20261122) },
    );
  });
});
