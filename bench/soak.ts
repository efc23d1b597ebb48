/**
 * `npm run soak`: a server in its own process under steady mixed load on loopback — reads, writes,
 * lists and SSE subscriptions that come and go — for SOAK_SECONDS (default 180). Prints the error
 * count (must be 0) and the server's memory growth after warm-up (must stay under 10%).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const WARMUP_SECONDS = Math.min(60, Math.max(10, Math.floor(SECONDS / 4)));
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 8);

const dataDir = mkdtempSync(join(tmpdir(), "strongroom-soak-"));
const cli = fileURLToPath(new URL("../packages/http-node/src/server/cli.ts", import.meta.url));
const server = spawn(process.execPath, ["--conditions=source", "--import", "tsx", cli], {
  env: { ...process.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" },
  stdio: ["ignore", "pipe", "inherit"],
});
const url = await new Promise<string>((resolve, reject) => {
  let out = "";
  const onData = (chunk: Buffer) => {
    out += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(out);
    if (match) {
      // keep draining the request log so the pipe never blocks the server
      server.stdout!.off("data", onData);
      server.stdout!.resume();
      resolve(match[1]);
    }
  };
  server.stdout!.on("data", onData);
  server.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
});

const rssKiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))?.[1] ?? 0);

async function api(method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const setup = await api("POST", "/api/v1/admin/bootstrap", undefined, { email: "soak@example.com", password: "a long password", organization: "Soak" });
const token = setup.body.identity.credentials.token as string;
const project = (await api("POST", "/api/v1/projects", token, { projectName: "Soak", slug: "soak-test" })).body.project;
const KEYS = 50;
await api("POST", "/api/v4/secrets/batch", token, {
  projectId: project.id,
  environment: "dev",
  secrets: Array.from({ length: KEYS }, (_, i) => ({ secretKey: `KEY_${i}`, secretValue: `v${i}` })),
});

let requests = 0;
let errors = 0;
const errorSamples: string[] = [];
const record = (what: string, status: number) => {
  requests++;
  if (status >= 400) {
    errors++;
    if (errorSamples.length < 5) errorSamples.push(`${what} → ${status}`);
  }
};

async function subscribeBriefly() {
  const controller = new AbortController();
  const res = await fetch(`${url}/api/v1/events/subscribe/project-events`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ projectId: project.id, register: [{ event: "secret:update", conditions: { environmentSlug: "dev", secretPath: "/**" } }] }),
    signal: controller.signal,
  });
  record("subscribe", res.status);
  if (res.ok) {
    const reader = res.body!.getReader();
    const timer = setTimeout(() => controller.abort(), 2000);
    await reader.read().catch(() => undefined);
    clearTimeout(timer);
    controller.abort();
  }
}

const deadline = Date.now() + SECONDS * 1000;
const samples: { t: number; rss: number }[] = [];
const sampler = setInterval(() => samples.push({ t: Date.now(), rss: rssKiB() }), 1000);

async function worker(id: number) {
  let n = 0;
  while (Date.now() < deadline) {
    const key = `KEY_${(id * 7 + n) % KEYS}`;
    try {
      switch (n++ % 10) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4:
          record("read", (await api("GET", `/api/v4/secrets/${key}?projectId=${project.id}&environment=dev`, token)).status);
          break;
        case 5:
        case 6:
          record("write", (await api("PATCH", `/api/v4/secrets/${key}`, token, { projectId: project.id, environment: "dev", secretValue: `v${n}` })).status);
          break;
        case 7:
          record("list", (await api("GET", `/api/v4/secrets?projectId=${project.id}&environment=dev`, token)).status);
          break;
        default:
          if (id === 0) await subscribeBriefly();
          else record("status", (await api("GET", "/api/status")).status);
      }
    } catch (error) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(String(error));
    }
  }
}

console.log(`soak: ${SECONDS} s, ${CONCURRENCY} workers, server pid ${server.pid}`);
await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => worker(i)));
clearInterval(sampler);

const after = samples.filter((s) => s.t >= samples[0].t + WARMUP_SECONDS * 1000);
const window = Math.max(1, Math.floor(after.length / 5));
const avg = (xs: { rss: number }[]) => xs.reduce((sum, s) => sum + s.rss, 0) / Math.max(1, xs.length);
const start = avg(after.slice(0, window));
const end = avg(after.slice(-window));
const growth = start ? ((end - start) / start) * 100 : 0;

server.kill("SIGTERM");
await new Promise((resolve) => server.once("exit", resolve));
rmSync(dataDir, { recursive: true, force: true });

console.log(`requests: ${requests} (${(requests / SECONDS).toFixed(0)}/s)`);
console.log(`errors: ${errors}${errorSamples.length ? ` e.g. ${errorSamples.join("; ")}` : ""}`);
console.log(`server RSS after ${WARMUP_SECONDS} s warm-up: ${(start / 1024).toFixed(1)} MiB → ${(end / 1024).toFixed(1)} MiB (${growth >= 0 ? "+" : ""}${growth.toFixed(1)}%)`);
const ok = errors === 0 && growth < 10;
console.log(ok ? "soak: passed" : "soak: FAILED (errors must be 0 and memory growth under 10%)");
process.exit(ok ? 0 : 1);
