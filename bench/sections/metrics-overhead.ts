/**
 * What metrics cost: authenticated single-secret reads over HTTP on SQLite, served by two
 * instances that differ only in metrics — one with METRICS_PORT's wiring (every storage call and
 * transaction timed, every request counted into a histogram by route template and status), one
 * without. Same handler options otherwise (request logging off); autocannon in a child process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anonymous, createStrongroom, generateRootKey, ServiceUnavailableError, type Strongroom } from "@strongroom/core";
import { createHandler, createMetrics, instrumentStorage, type StrongroomMetrics } from "@strongroom/http-node";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { close, listen, loadTest } from "../load.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const TARGET = 0.9;

async function instance(dir: string, metrics?: StrongroomMetrics): Promise<{ sr: Strongroom; path: string; token: string }> {
  const storage = await createSqliteStorage({ filename: join(dir, `${metrics ? "on" : "off"}.db`) });
  const sr = await createStrongroom({ storage: metrics ? instrumentStorage(storage, metrics.storage) : storage, rootKey: generateRootKey() });
  const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
  const admin = await sr.authenticate(boot.identity.credentials.token);
  const { project } = await sr.projects.create(admin, { projectName: "Bench" });
  await sr.secrets.create(admin, { projectId: project.id, environment: "prod", secretPath: "/", secretName: "DB_URL", secretValue: `postgres://${"x".repeat(40)}` });
  return { sr, token: boot.identity.credentials.token, path: `/api/v4/secrets/DB_URL?projectId=${project.id}&environment=prod&secretPath=%2F` };
}

/**
 * The same reads in process (no HTTP, no load generator: steadier on a busy machine), the "on"
 * instance also reporting each read as a request would. Alternating rounds; reads per second.
 */
async function inProcess(off: Awaited<ReturnType<typeof instance>>, on: Awaited<ReturnType<typeof instance>>, metrics: StrongroomMetrics, quick: boolean) {
  const input = (path: string) => Object.fromEntries(new URL(path, "http://x").searchParams) as { projectId: string; environment: string; secretPath: string };
  const read = async (target: typeof off, report: boolean, count: number) => {
    const actor = await target.sr.authenticate(target.token);
    const where = { ...input(target.path), secretName: "DB_URL" };
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      // The audit log pushes back (503) when its queue is full: wait for it, in both arms alike.
      for (;;) {
        try {
          await target.sr.secrets.get(actor, where);
          break;
        } catch (thrown) {
          if (!(thrown instanceof ServiceUnavailableError)) throw thrown;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
      if (report) metrics.onResponse({ method: "GET", route: "/api/v4/secrets/{secretName}", status: 200, durationMs: performance.now() - t0 });
    }
    return count / ((performance.now() - started) / 1000);
  };
  const count = quick ? 500 : 2_000;
  await read(off, false, count);
  await read(on, true, count);
  const offRates: number[] = [];
  const onRates: number[] = [];
  for (let round = 0; round < 4; round++) {
    if (round % 2 === 0) {
      offRates.push(await read(off, false, count));
      onRates.push(await read(on, true, count));
    } else {
      onRates.push(await read(on, true, count));
      offRates.push(await read(off, false, count));
    }
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return { off: mean(offRates), on: mean(onRates) };
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-metrics-"));
  const metrics = createMetrics();
  const off = await instance(dir);
  const on = await instance(dir, metrics);
  metrics.watchInstance(on.sr);
  const offServer = await listen(createHandler(off.sr, { logger: () => undefined }));
  const onHandler = createHandler(on.sr, { logger: () => undefined, onResponse: metrics.onResponse });
  metrics.watchHandler(onHandler);
  const onServer = await listen(onHandler);
  const seconds = options.quick ? 4 : 10;
  try {
    await loadTest(offServer.url + off.path, 1, { headers: { authorization: `Bearer ${off.token}` } });
    await loadTest(onServer.url + on.path, 1, { headers: { authorization: `Bearer ${on.token}` } });
    // Alternating halves (off, on, on, off), so a drift in the machine's load hits both alike.
    const offLoad = () => loadTest(offServer.url + off.path, seconds / 2, { headers: { authorization: `Bearer ${off.token}` } });
    const onLoad = () => loadTest(onServer.url + on.path, seconds / 2, { headers: { authorization: `Bearer ${on.token}` } });
    const halves = [await offLoad(), await onLoad(), await onLoad(), await offLoad()];
    const both = (a: { rps: number; non2xx: number }, b: { rps: number; non2xx: number }) => ({ rps: (a.rps + b.rps) / 2, non2xx: a.non2xx + b.non2xx });
    const offRun = both(halves[0], halves[3]);
    const onRun = both(halves[1], halves[2]);
    if (offRun.non2xx + onRun.non2xx > 0) throw new Error(`${offRun.non2xx + onRun.non2xx} secret reads failed`);
    const scrape = await metrics.text();
    if (!/strongroom_http_requests_total\{method="GET",route="\/api\/v4\/secrets\/\{secretName\}",status="200"\} [1-9]/.test(scrape)) {
      throw new Error("the metrics did not count the reads");
    }
    options.log(`metrics off ${offRun.rps.toFixed(0)} req/s, on ${onRun.rps.toFixed(0)} req/s`);
    const ratio = onRun.rps / offRun.rps;
    const local = await inProcess(off, on, metrics, options.quick);
    options.log(`in process: metrics off ${local.off.toFixed(0)} reads/s, on ${local.on.toFixed(0)} reads/s`);
    const localRatio = local.on / local.off;
    return [
      {
        section: "secret read in process with metrics on (SQLite)",
        ours: `${local.on.toFixed(0)} reads/s`,
        baseline: `${local.off.toFixed(0)} reads/s metrics off`,
        ratio: `${(localRatio * 100).toFixed(0)}%`,
        target: ">= 90% of metrics off",
        met: localRatio >= TARGET,
      },
      {
        section: "secret read over HTTP with metrics on (SQLite)",
        ours: `${onRun.rps.toFixed(0)} req/s`,
        baseline: `${offRun.rps.toFixed(0)} req/s metrics off`,
        ratio: `${(ratio * 100).toFixed(0)}%`,
        target: ">= 90% of metrics off",
        met: ratio >= TARGET,
      },
    ];
  } finally {
    await close(offServer.server);
    await close(onServer.server);
    await off.sr.close();
    await on.sr.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const section: BenchSection = { name: "metrics-overhead", run };
export default section;
