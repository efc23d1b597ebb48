/**
 * The server process as operators run it (`packages/http-node/dist/cli.js`, SQLite in a data
 * directory): time from spawn to the first 200 from `/api/status/ready` on a restart over
 * existing data (the first start, which creates the database and the root key, is logged), the
 * resident set once idle, and the peak resident set after a burst of requests. Uses the built
 * dist/ (run `npm run build` first); without it, the TypeScript sources through tsx, which is
 * reported as such since compiling on load is most of the start then.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTest } from "../load.js";
import { BUILT, startServer } from "../parts/server-process.js";
import { spread } from "../rounds.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const READY_MS = 300;
const IDLE_RSS_MB = 80;

const rssMb = (pid: number, field: "VmRSS" | "VmHWM") => {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : NaN;
};

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-start-"));
  const how = existsSync(BUILT) ? "built dist/" : "sources through tsx";
  try {
    const first = await startServer(dir);
    await first.stop();
    options.log(`first start (new database and root key, ${how}): ${first.ms.toFixed(0)} ms`);
    const times: number[] = [];
    const bareTimes: number[] = [];
    const idle: number[] = [];
    const bareIdle: number[] = [];
    let peak = NaN;
    const rounds = options.quick ? 3 : 7;
    for (let round = 0; round < rounds; round++) {
      const bare = await startServer(dir, true);
      bareTimes.push(bare.ms);
      await new Promise((r) => setTimeout(r, 200));
      if (existsSync(`/proc/${bare.pid}/status`)) bareIdle.push(rssMb(bare.pid, "VmRSS"));
      await bare.stop();
      const started = await startServer(dir);
      try {
        times.push(started.ms);
        await new Promise((r) => setTimeout(r, 1000));
        if (existsSync(`/proc/${started.pid}/status`)) idle.push(rssMb(started.pid, "VmRSS"));
        if (round === rounds - 1) {
          await loadTest(`${started.url}/api/status`, options.quick ? 1 : 3);
          if (existsSync(`/proc/${started.pid}/status`)) peak = rssMb(started.pid, "VmHWM");
        }
      } finally {
        await started.stop();
      }
    }
    const t = spread(times);
    const rss = spread(idle);
    const bt = spread(bareTimes);
    const brss = spread(bareIdle);
    options.log(`restart to ready: ${times.map((ms) => ms.toFixed(0)).join(", ")} ms; idle RSS ${idle.map((mb) => mb.toFixed(0)).join(", ")} MB; peak under load ${peak.toFixed(0)} MB`);
    return [
      {
        section: `cold start to ready (SQLite, ${how})`,
        ours: `${t.median.toFixed(0)} ms (${t.min.toFixed(0)}–${t.max.toFixed(0)})`,
        baseline: `bare node:http process ${bt.median.toFixed(0)} ms (${bt.min.toFixed(0)}–${bt.max.toFixed(0)})`,
        ratio: `${(t.median / bt.median).toFixed(1)}x bare`,
        target: `<= ${READY_MS} ms`,
        met: t.median <= READY_MS,
      },
      {
        section: "idle RSS (SQLite)",
        ours: `${rss.median.toFixed(0)} MB (${rss.min.toFixed(0)}–${rss.max.toFixed(0)}); peak ${Number.isNaN(peak) ? "n/a" : `${peak.toFixed(0)} MB`} under load`,
        baseline: `bare node:http process ${brss.median.toFixed(0)} MB`,
        ratio: `${(rss.median / brss.median).toFixed(1)}x bare`,
        target: `<= ${IDLE_RSS_MB} MB`,
        met: rss.median <= IDLE_RSS_MB,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const section: BenchSection = { name: "startup", run };
export default section;
