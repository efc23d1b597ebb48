/**
 * What metrics cost: authenticated single-secret reads over HTTP on SQLite, served by two
 * instances that differ only in metrics — one with METRICS_PORT's wiring (every storage call and
 * transaction timed, every request counted into a histogram by route template and status), one
 * without. Same handler options otherwise (request logging off); autocannon in a child process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anonymous, createStrongroom, generateRootKey, type Strongroom } from "@strongroom/core";
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
  const seconds = options.quick ? 3 : 10;
  try {
    await loadTest(offServer.url + off.path, 1, { headers: { authorization: `Bearer ${off.token}` } });
    await loadTest(onServer.url + on.path, 1, { headers: { authorization: `Bearer ${on.token}` } });
    const offRun = await loadTest(offServer.url + off.path, seconds, { headers: { authorization: `Bearer ${off.token}` } });
    const onRun = await loadTest(onServer.url + on.path, seconds, { headers: { authorization: `Bearer ${on.token}` } });
    if (offRun.non2xx + onRun.non2xx > 0) throw new Error(`${offRun.non2xx + onRun.non2xx} secret reads failed`);
    const scrape = await metrics.text();
    if (!/strongroom_http_requests_total\{method="GET",route="\/api\/v4\/secrets\/\{secretName\}",status="200"\} [1-9]/.test(scrape)) {
      throw new Error("the metrics did not count the reads");
    }
    options.log(`metrics off ${offRun.rps.toFixed(0)} req/s, on ${onRun.rps.toFixed(0)} req/s`);
    const ratio = onRun.rps / offRun.rps;
    return [
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
