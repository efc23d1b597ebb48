/**
 * The server process as operators run it (`packages/http-node/dist/cli.js`, SQLite in a data
 * directory): time from spawn to the first 200 from `/api/status/ready` on a restart over
 * existing data (the first start, which creates the database and the root key, is logged), the
 * resident set once idle, and the peak resident set after a burst of requests. Uses the built
 * dist/ (run `npm run build` first); without it, the TypeScript sources through tsx, which is
 * reported as such since compiling on load is most of the start then.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTest } from "../load.js";
import { spread } from "../rounds.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const BUILT = fileURLToPath(new URL("../../packages/http-node/dist/cli.js", import.meta.url));
const SOURCE = fileURLToPath(new URL("../../packages/http-node/src/server/cli.ts", import.meta.url));
const READY_MS = 300;
const IDLE_RSS_MB = 80;

interface Started {
  ms: number;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** The machine's floor: a node process whose bare node:http server says it is ready. */
const BARE = [
  "--input-type=module",
  "-e",
  `import { createServer } from "node:http";
   const server = createServer((req, res) => res.end("{}"));
   server.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + server.address().port));
   process.on("SIGTERM", () => process.exit(0));`,
];

function startServer(dataDir: string, bare = false): Promise<Started> {
  const args = bare ? BARE : existsSync(BUILT) ? [BUILT] : ["--conditions=source", "--import", "tsx", SOURCE];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    let output = "";
    const failed = (code: number | null) => reject(new Error(`the server exited with ${code}: ${output}`));
    child.once("exit", failed);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on("data", async (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match) return;
      child.stdout!.removeAllListeners("data");
      child.stdout!.resume();
      const url = match[1]!;
      // Listening comes before ready only if something still loads; poll until it says ready.
      while (child.exitCode === null) {
        const ok = await fetch(`${url}/api/status/ready`).then((r) => r.status === 200, () => false);
        if (ok) break;
        await new Promise((r) => setTimeout(r, 2));
      }
      child.off("exit", failed);
      resolve({ ms: performance.now() - t0, url, pid: child.pid!, stop });
    });
  });
}

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
