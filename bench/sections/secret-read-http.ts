/**
 * Authenticated single-secret reads over HTTP (`GET /api/v4/secrets/{name}`: token lookup,
 * project access, environment, blind-index lookup, decryption, permission check, JSON) by a
 * machine identity with the built-in member role, against, in the same run and alternating
 * rounds:
 *  - bare node:http answering the same body (byte for byte) and the same headers;
 *  - a Fastify 5 peer doing the same work as a user would write it (bench/peers): JSON schemas,
 *    token by hash, membership and role, the secret, AES-GCM, no caches;
 *  - on PostgreSQL, Strongroom against the same Fastify peer on pg.
 * Both servers log each request as shipped, into a file through their asynchronous writers
 * (ours: one JSON line; Fastify: pino's two lines). Our log-off run gives the log's cost.
 * Servers run in this process, autocannon in a child with the same connections and duration.
 *
 * Imports go through the package names, so the core and the adapters share one copy of the core:
 * run with a fresh build, or with `--conditions=source` to use the TypeScript sources.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RequestListener } from "node:http";
import { createStrongroom, generateRootKey, type Strongroom } from "@strongroom/core";
import { bufferedLogger, createHandler, newRequestId, silentLogger, type Logger } from "@strongroom/http-node";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { withPostgres, type TestDatabase } from "@strongroom/storage-postgres/testing";
import { close, listen, loadTest, type LoadResult } from "../load.js";
import { alternate, formatRate, spread } from "../rounds.js";
import { fastifyPeer } from "../peers/fastify-read.js";
import { READ, SECRETS, seed, value } from "../parts/read-seed.js";
import { postgresStore, sqliteStore, type PeerStore } from "../peers/secret-store.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";


/** Bare node:http answering `body` with the headers our adapter sends (a fresh request id each time). */
function bareListener(body: string): RequestListener {
  const length = String(Buffer.byteLength(body));
  return (_req, res) => {
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "content-length": length,
      "x-request-id": newRequestId(),
    });
    res.end(body);
  };
}

interface Target {
  url: string;
  headers?: Record<string, string>;
  stop(): Promise<void>;
}

async function oursOn(sr: Strongroom, logger: Logger): Promise<Target & { token: string }> {
  const { token, path } = await seed(sr);
  const running = await listen(createHandler(sr, { logger }));
  return { url: running.url + path, headers: { authorization: `Bearer ${token}` }, token, stop: () => close(running.server) };
}

async function peerOn(store: PeerStore, key: Buffer, token: string, projectId: string, logFile: string | null): Promise<Target> {
  const { app, url } = await fastifyPeer(store, { key }, logFile);
  return {
    url: `${url}/api/v4/secrets/${READ}?projectId=${projectId}&environment=prod&secretPath=%2F`,
    headers: { authorization: `Bearer ${token}` },
    stop: () => app.close(),
  };
}

const bodyOf = async (target: Target) => {
  const res = await fetch(target.url, { headers: target.headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${target.url}: ${res.status} ${text}`);
  return text;
};

/** Alternating rounds over `targets`; every answer must be a 200. */
async function measure(targets: Record<string, Target>, options: BenchOptions): Promise<Record<string, LoadResult[]>> {
  // Quick (CI): 1-second runs, three rounds; enough for the ratios, not for the spread.
  const seconds = options.quick ? 1 : 5;
  const rounds = options.quick ? 3 : 5;
  for (const target of Object.values(targets)) await loadTest(target.url, 1, { headers: target.headers }); // JIT, statement and key caches
  const runs = Object.fromEntries(
    Object.entries(targets).map(([name, target]) => [
      name,
      async () => {
        const result = await loadTest(target.url, seconds, { headers: target.headers });
        if (result.non2xx > 0) throw new Error(`${name}: ${result.non2xx} reads failed`);
        return result;
      },
    ]),
  );
  const samples = await alternate(rounds, runs);
  for (const [name, results] of Object.entries(samples)) {
    const s = spread(results.map((r) => r.rps));
    const cpu = spread(results.map((r) => r.cpuUsPerRequest));
    options.log(`${name}: ${formatRate(s, "req/s")}, p99 ${spread(results.map((r) => r.p99)).median} ms, CPU ${cpu.median.toFixed(1)} µs/request (${cpu.min.toFixed(1)}–${cpu.max.toFixed(1)})`);
  }
  return samples;
}

const rpsOf = (results: LoadResult[]) => spread(results.map((r) => r.rps));

async function sqliteRows(dir: string, options: BenchOptions): Promise<BenchRow[]> {
  const sr = await createStrongroom({ storage: await createSqliteStorage({ filename: join(dir, "strongroom.db") }), rootKey: generateRootKey() });
  const peer = sqliteStore(join(dir, "peer.db"), SECRETS, value);
  const targets: Record<string, Target> = {};
  try {
    targets.ours = await oursOn(sr, bufferedLogger(join(dir, "ours.log")));
    const { token, path } = { token: (targets.ours as Target & { token: string }).token, path: new URL(targets.ours.url).pathname + new URL(targets.ours.url).search };
    const quiet = await listen(createHandler(sr, { logger: silentLogger }));
    targets["ours, log off"] = { url: quiet.url + path, headers: { authorization: `Bearer ${token}` }, stop: () => close(quiet.server) };
    const bare = await listen(bareListener(await bodyOf(targets.ours)));
    targets.bare = { url: bare.url, stop: () => close(bare.server) };
    targets.fastify = await peerOn(peer.store, peer.seed.key, peer.seed.token, peer.seed.projectId, join(dir, "fastify.log"));
    if (!options.quick) targets["fastify, log off"] = await peerOn(peer.store, peer.seed.key, peer.seed.token, peer.seed.projectId, null);
    const bodies = [await bodyOf(targets.ours), await bodyOf(targets.fastify)];
    options.log(`answer bodies: ours ${bodies[0]!.length} B, fastify ${bodies[1]!.length} B`);

    const samples = await measure(targets, options);
    const ours = rpsOf(samples.ours!);
    const off = rpsOf(samples["ours, log off"]!);
    const bareRps = rpsOf(samples.bare!);
    const fastify = rpsOf(samples.fastify!);
    const perRound = (a: string, b: string) => spread(samples[a]!.map((r, i) => r.rps / samples[b]![i]!.rps));
    const vsFastify = perRound("ours", "fastify");
    const vsBare = perRound("ours", "bare");
    // CPU time per request, not 1/throughput: on a shared machine the latter swings by more than the log costs.
    const logCost = spread(samples.ours!.map((r, i) => r.cpuUsPerRequest - samples["ours, log off"]![i]!.cpuUsPerRequest));
    return [
      {
        section: "secret read over HTTP vs Fastify (SQLite, logs on)",
        ours: formatRate(ours, "req/s"),
        baseline: `Fastify 5 + better-sqlite3 ${formatRate(fastify, "req/s")}`,
        ratio: `${vsFastify.median.toFixed(2)}x (${vsFastify.min.toFixed(2)}–${vsFastify.max.toFixed(2)})`,
        target: ">= 1.5x Fastify",
        met: vsFastify.median >= 1.5,
      },
      {
        section: "secret read over HTTP vs bare (SQLite, logs on)",
        ours: formatRate(ours, "req/s"),
        baseline: `bare node:http, same body and headers ${formatRate(bareRps, "req/s")}`,
        ratio: `${(vsBare.median * 100).toFixed(0)}% (${(vsBare.min * 100).toFixed(0)}–${(vsBare.max * 100).toFixed(0)}%)`,
        target: ">= 40% of bare",
        met: vsBare.median >= 0.4,
      },
      {
        section: "request log cost (SQLite read)",
        ours: `${logCost.median.toFixed(1)} µs/request (${logCost.min.toFixed(1)}–${logCost.max.toFixed(1)})`,
        baseline: `log off ${formatRate(off, "req/s")}`,
        ratio: `${((logCost.median / spread(samples.ours!.map((r) => r.cpuUsPerRequest)).median) * 100).toFixed(1)}% of the request's CPU`,
        target: "<= 5 µs/request",
        met: logCost.median <= 5,
      },
    ];
  } finally {
    for (const target of Object.values(targets)) await target.stop();
    await peer.store.close();
    await sr.close();
  }
}

async function postgresRows(dir: string, options: BenchOptions): Promise<BenchRow[]> {
  const databases: TestDatabase[] = [await withPostgres(), await withPostgres()];
  const [oursDb, peerDb] = databases as [TestDatabase, TestDatabase];
  if (!oursDb.available || !peerDb.available) {
    options.log("PostgreSQL not reachable: no PostgreSQL row");
    return [];
  }
  const sr = await createStrongroom({ storage: await createPostgresStorage({ connectionString: oursDb.url }), rootKey: generateRootKey() });
  const peer = await postgresStore(peerDb.url, SECRETS, value);
  const targets: Record<string, Target> = {};
  try {
    targets["ours (pg)"] = await oursOn(sr, bufferedLogger(join(dir, "ours-pg.log")));
    targets["fastify (pg)"] = await peerOn(peer.store, peer.seed.key, peer.seed.token, peer.seed.projectId, join(dir, "fastify-pg.log"));
    const samples = await measure(targets, options);
    const ratio = spread(samples["ours (pg)"]!.map((r, i) => r.rps / samples["fastify (pg)"]![i]!.rps));
    return [
      {
        section: "secret read over HTTP vs Fastify (PostgreSQL, logs on)",
        ours: formatRate(rpsOf(samples["ours (pg)"]!), "req/s"),
        baseline: `Fastify 5 + pg (named statements) ${formatRate(rpsOf(samples["fastify (pg)"]!), "req/s")}`,
        ratio: `${ratio.median.toFixed(2)}x (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})`,
        target: ">= 1.2x Fastify + pg",
        met: ratio.median >= 1.2,
      },
    ];
  } finally {
    for (const target of Object.values(targets)) await target.stop();
    await peer.store.close();
    await sr.close();
    for (const db of databases) await db.drop();
  }
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-read-"));
  try {
    return [...(await sqliteRows(dir, options)), ...(process.env.BENCH_NO_PG ? [] : await postgresRows(dir, options))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const section: BenchSection = { name: "secret-read-http", run };
export default section;
