/**
 * Two server processes on one PostgreSQL database against one: the secret read of
 * secret-read-http, as the built server (`dist/cli.js` with DATABASE_URL), 32 connections in all
 * (one autocannon on one node; or two, 16 connections each, one per node, at the same time).
 * Reported, not targeted: the machine has two cores, shared with PostgreSQL and the load
 * generators, so a second node mostly shows what the first left idle. Full run only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStrongroom, generateRootKey } from "@strongroom/core";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { withPostgres } from "@strongroom/storage-postgres/testing";
import { loadTest } from "../load.js";
import { seed } from "../parts/read-seed.js";
import { startServer, type Started } from "../parts/server-process.js";
import { alternate, formatRate, spread } from "../rounds.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

async function run(options: BenchOptions): Promise<BenchRow[]> {
  if (options.quick || process.env.BENCH_NO_PG) {
    options.log("full run only");
    return [];
  }
  const db = await withPostgres();
  if (!db.available) return [];
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-nodes-"));
  const nodes: Started[] = [];
  try {
    const rootKey = generateRootKey();
    const setup = await createStrongroom({ storage: await createPostgresStorage({ connectionString: db.url }), rootKey });
    const { token, path } = await seed(setup);
    await setup.close();
    const env = { DATABASE_URL: db.url, STRONGROOM_ROOT_KEY: rootKey };
    for (const name of ["a", "b"]) nodes.push(await startServer(join(dir, name), false, env));
    const headers = { authorization: `Bearer ${token}` };
    const [a, b] = nodes as [Started, Started];
    const read = async (node: Started, connections: number) => {
      const result = await loadTest(node.url + path, 4, { headers, connections });
      if (result.non2xx > 0) throw new Error(`${result.non2xx} reads failed`);
      return result.rps;
    };
    await Promise.all([read(a, 16), read(b, 16)]); // warm-up
    const samples = await alternate(3, {
      one: () => read(a, 32),
      two: async () => (await Promise.all([read(a, 16), read(b, 16)])).reduce((x, y) => x + y, 0),
    });
    const one = spread(samples.one!);
    const two = spread(samples.two!);
    const ratio = spread(samples.two!.map((r, i) => r / samples.one![i]!));
    options.log(`one node ${formatRate(one, "req/s")}, two nodes ${formatRate(two, "req/s")}`);
    return [
      {
        section: "two nodes on one PostgreSQL (secret read)",
        ours: `two nodes ${formatRate(two, "req/s")}`,
        baseline: `one node ${formatRate(one, "req/s")}`,
        ratio: `${ratio.median.toFixed(2)}x (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})`,
        target: "report (2 cores)",
        met: true,
      },
    ];
  } finally {
    for (const node of nodes) await node.stop();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const section: BenchSection = { name: "two-nodes", run };
export default section;
