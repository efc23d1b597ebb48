import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import type { Actor } from "@strongroom/core";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { emptyModel, insiderCommands, outcomes } from "./commands.js";
import { sweep } from "./oracle.js";
import { enrollProxy, insiderScene, type Denied } from "./scene.js";

/**
 * Issue 15's model-based insider test. An admin denies secrets to a restricted machine identity by
 * tag, environment, name and path; the insider (and an accomplice it may try to empower) then
 * makes long random sequences of the moves its role allows. After every step nothing the admin
 * denied — value, and with `read` denied also name, id, comment and metadata — is readable through
 * any read path (oracle.ts: the test's own record of the denied secrets, not the permission
 * engine).
 *
 * CI replays a fixed seed; `npm run insider` runs many more sequences with a random seed
 * (INSIDER_RUNS sequences per store, INSIDER_SEED to replay one, INSIDER_STORES=memory,sqlite to choose).
 */

const nightly = process.env.INSIDER_RUNS !== undefined;
const seed = process.env.INSIDER_SEED ?? process.env.FC_SEED;
const fixedSeed = seed !== undefined ? Number(seed) : nightly ? undefined : 20261128;

/**
 * Sequences per store in CI (about 15 moves each, up to 30). DESIGN.md §11 asks for 1,000 on memory;
 * with every read path swept after every move (~30 ms a move in memory, ~65 ms on SQLite) that
 * would take ten minutes, so CI runs these (under a minute a store) and `npm run insider` the rest.
 */
const RUNS: Record<string, number> = { memory: 100, sqlite: 50, postgres: 25 };
const runsOn = (store: string) => (nightly ? Number(process.env.INSIDER_RUNS) : (RUNS[store] ?? 100));

const START = "2026-03-01T00:00:00.000Z";

/**
 * Sequences per world: every sequence gets its own project, but organization-wide lists (the
 * proxy's services, identities) grow with each, so a world serves a bounded number of them.
 */
const SEQUENCES_PER_WORLD = 25;

forEachStore("the insider cannot read what the admin denied, whatever it does", (store) => {
  let world: { w: TestWorld; proxy: Actor; used: number } | undefined;

  const nextWorld = async () => {
    if (world && world.used < SEQUENCES_PER_WORLD) return world;
    await world?.w.close();
    const w = await createTestWorld({ storage: await store.open() });
    world = { w, proxy: await enrollProxy(w), used: 0 };
    return world;
  };
  afterAll(() => world?.w.close());

  it(`${runsOn(store.name)} sequences of up to 30 moves`, { timeout: 30 * 60_000 }, async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Denied>("read", "readValue"), fc.commands(insiderCommands(), { maxCommands: 30, size: "medium" }), async (denied, commands) => {
        const { w, proxy } = await nextWorld();
        world!.used++;
        // Each sequence starts at the same time, so the world's long-lived tokens never lapse.
        w.clock.set(START);
        await w.sr.agentProxies.heartbeat(proxy, {});
        const scene = await insiderScene(w, proxy, denied);
        try {
          await fc.asyncModelRun(() => ({ model: emptyModel(), real: scene }), commands);
          await sweep(scene, "the end of the sequence");
        } finally {
          scene.close();
        }
        runs++;
      }),
      { numRuns: runsOn(store.name), seed: fixedSeed, endOnFailure: true, verbose: 1 },
    );
    expect(runs).toBeGreaterThan(0);
    if (process.env.INSIDER_STATS) {
      const rows = [...outcomes].sort().map(([kind, byCode]) => `${kind.padEnd(28)} ${[...byCode].map(([code, n]) => `${code} ${n}`).join(", ")}`);
      console.log(`${store.name}: ${runs} sequences\n${rows.join("\n")}`);
      outcomes.clear();
    }
  });
}, { only: process.env.INSIDER_STORES?.split(",") });
