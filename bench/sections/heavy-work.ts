/**
 * Heavy work does not stall the node (issue #16): the latency of unrelated reads (one secret of
 * another project, `GET /api/v4/secrets/{name}`, two keep-alive connections pausing 5 ms between
 * requests) while the same node answers back-to-back 5,000-item batch upserts
 * (`PATCH /api/v4/secrets/batch`, every value changed: the same 5,000 secrets updated each time,
 * or 5,000 new ones created each time), or
 * back-to-back lists of 10,000 secrets; against the same reads with the node otherwise idle.
 * Idle and busy rounds alternate, so machine noise hits both; the latencies of all rounds are
 * pooled, and the per-round p99s give the spread (the lists' own latency is the secret-list
 * section's). SQLite file storage, and the batch row again on PostgreSQL
 * (PG_URL) when a server answers.
 *
 * The node runs in this process (request log off: where its lines go would decide the figure);
 * every client is a child process (bench/latency-probe.mjs), so none shares the node's event loop.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anonymous, createStrongroom, generateRootKey, type Strongroom } from "@strongroom/core";
import type { Storage } from "@strongroom/core/storage";
import { createHandler } from "@strongroom/http-node";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { withPostgres } from "@strongroom/storage-postgres/testing";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { ms, probe, quantile, spread, type ProbeSpec } from "../probe.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const P99_TARGET_MS = 25;
const BATCH = 5_000;
const LIST_SIZE = 10_000;

interface Node {
  sr: Strongroom;
  url: string;
  token: string;
  projectId: string;
  readPath: string;
  close(): Promise<void>;
}

async function startNode(storage: Storage<any>, cleanup: () => Promise<void>, listSizes: readonly number[]): Promise<Node> {
  const sr = await createStrongroom({ storage, rootKey: generateRootKey() });
  const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
  const token = boot.identity.credentials.token;
  const admin = await sr.authenticate(token);
  const { project } = await sr.projects.create(admin, { projectName: "Heavy" });
  const { project: other } = await sr.projects.create(admin, { projectName: "Unrelated" });
  await sr.secrets.create(admin, { projectId: other.id, environment: "dev", secretPath: "/", secretName: "UNRELATED", secretValue: "v".repeat(40) });
  for (const size of listSizes) {
    await sr.folders.create(admin, { projectId: project.id, environment: "dev", name: `list-${size}` });
    for (let from = 0; from < size; from += 5_000) {
      const secrets = Array.from({ length: Math.min(5_000, size - from) }, (_, i) => ({ secretKey: `LISTED_${from + i}`, secretValue: `value-${from + i}-${"x".repeat(24)}` }));
      await sr.secrets.createMany(admin, { projectId: project.id, environment: "dev", secretPath: `/list-${size}`, secrets });
    }
  }
  await sr.folders.create(admin, { projectId: project.id, environment: "dev", name: "batch" });
  const server: Server = createServer(createHandler(sr, { logger: () => undefined, maxBodyBytes: 8 * 1024 * 1024 }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    sr,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    projectId: project.id,
    readPath: `/api/v4/secrets/UNRELATED?projectId=${other.id}&environment=dev&secretPath=%2F`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sr.close();
      await cleanup();
    },
  };
}

const listPath = (node: Node, size: number) => `/api/v4/secrets?projectId=${node.projectId}&environment=dev&secretPath=%2Flist-${size}`;

/** The unrelated reads of one round, with `heavy` (if any) running from just before they start until they end. */
async function readRound(node: Node, seconds: number, heavy?: Omit<ProbeSpec, "url" | "seconds" | "headers"> & { path: string }) {
  const auth = { authorization: `Bearer ${node.token}` };
  const busy = heavy && probe({ ...heavy, url: node.url + heavy.path, headers: auth, seconds: seconds + 0.3 });
  if (busy) await new Promise((resolve) => setTimeout(resolve, 300));
  const reads = await probe({ url: node.url + node.readPath, headers: auth, connections: 2, pauseMs: 5, seconds });
  const work = await busy;
  if (reads.non2xx || work?.non2xx) throw new Error(`${reads.non2xx} reads and ${work?.non2xx ?? 0} heavy requests failed`);
  return { reads: reads.latencies, work: work?.latencies ?? [] };
}

interface Comparison {
  idle: number[];
  busy: number[];
  idleP99: number[];
  busyP99: number[];
  work: number[];
}

/** Alternating idle and busy rounds; every read latency pooled, and each round's p99. */
async function compare(node: Node, rounds: number, seconds: number, heavy: Parameters<typeof readRound>[2], log: (line: string) => void, what: string): Promise<Comparison> {
  const c: Comparison = { idle: [], busy: [], idleP99: [], busyP99: [], work: [] };
  for (let round = 0; round < rounds; round++) {
    const idle = await readRound(node, seconds);
    const busy = await readRound(node, seconds, heavy);
    c.idle.push(...idle.reads);
    c.busy.push(...busy.reads);
    c.idleP99.push(quantile(idle.reads, 0.99));
    c.busyP99.push(quantile(busy.reads, 0.99));
    c.work.push(...busy.work);
    log(
      `${what} round ${round + 1}: read p99 idle ${ms(quantile(idle.reads, 0.99))}, busy ${ms(quantile(busy.reads, 0.99))} ` +
        `(max ${ms(Math.max(...busy.reads))}, ${busy.reads.length} reads); ${busy.work.length} heavy requests, p50 ${ms(quantile(busy.work, 0.5))}`,
    );
  }
  return c;
}

function p99Row(section: string, c: Comparison): BenchRow {
  const busy = quantile(c.busy, 0.99);
  const idle = quantile(c.idle, 0.99);
  return {
    section,
    ours: `${ms(busy)} p99 (rounds ${spread(c.busyP99)}; heavy p50 ${ms(quantile(c.work, 0.5))})`,
    baseline: `${ms(idle)} p99 idle (rounds ${spread(c.idleP99)})`,
    ratio: `${(busy / idle).toFixed(2)}x`,
    target: `<= ${P99_TARGET_MS} ms`,
    met: busy <= P99_TARGET_MS,
  };
}

/** Back-to-back 5,000-item upserts: updating the same secrets each time, or (`fresh`) creating new ones. */
const batchWork = (node: Node, fresh = false) => ({
  path: "/api/v4/secrets/batch",
  method: "PATCH" as const,
  connections: 1,
  batch: { size: BATCH, prefix: "BATCHED", fresh, fields: { projectId: node.projectId, environment: "dev", secretPath: "/batch" } },
});

async function sqliteRows(options: BenchOptions, rounds: number, seconds: number): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-heavy-"));
  const node = await startNode(await createSqliteStorage({ filename: join(dir, "strongroom.db") }), async () => rmSync(dir, { recursive: true, force: true }), [LIST_SIZE]);
  try {
    const rows: BenchRow[] = [];
    // Warm-up, not counted: JIT, statement and key caches, and the batch's 5,000 secrets created.
    await readRound(node, 1, batchWork(node));
    const updates = await compare(node, rounds, seconds, batchWork(node), options.log, "5,000-item batch of updates");
    rows.push(p99Row(`unrelated read during ${BATCH.toLocaleString("en")}-item batches updating secrets (SQLite)`, updates));
    const creates = await compare(node, rounds, seconds, batchWork(node, true), options.log, "5,000-item batch of new secrets");
    rows.push(p99Row(`unrelated read during ${BATCH.toLocaleString("en")}-item batches creating secrets (SQLite)`, creates));
    const list = await compare(node, rounds, seconds, { path: listPath(node, 10_000), connections: 1 }, options.log, "10,000-secret list");
    rows.push(p99Row("unrelated read during 10,000-secret lists (SQLite)", list));

    return rows;
  } finally {
    await node.close();
  }
}

async function postgresRows(options: BenchOptions, rounds: number, seconds: number): Promise<BenchRow[]> {
  const pg = await withPostgres();
  if (!pg.available) {
    options.log("PostgreSQL not reachable at PG_URL: no PostgreSQL row");
    return [];
  }
  const node = await startNode(await createPostgresStorage({ connectionString: pg.url }), () => pg.drop(), []);
  try {
    await readRound(node, 1, batchWork(node));
    const batch = await compare(node, rounds, seconds, batchWork(node), options.log, "5,000-item batch of updates (PostgreSQL)");
    return [p99Row(`unrelated read during ${BATCH.toLocaleString("en")}-item batches updating secrets (PostgreSQL)`, batch)];
  } finally {
    await node.close();
  }
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const rounds = options.quick ? 2 : 4;
  const seconds = options.quick ? 2 : 6;
  return [...(await sqliteRows(options, rounds, seconds)), ...(process.env.BENCH_NO_PG ? [] : await postgresRows(options, rounds, seconds))];
}

const section: BenchSection = { name: "heavy-work", run };
export default section;
