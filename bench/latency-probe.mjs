/**
 * A load client for bench sections, run in a child process so it never shares the server's event
 * loop: `node bench/latency-probe.mjs '<json spec>'`. Keep-alive connections each send requests in
 * a closed loop (with `pauseMs` between an answer and the next request) for `seconds`, and print
 * one JSON line: each request's latency in ms, its start time (ms since the probe started) and
 * the count of non-2xx answers. `batch` makes each request's body an upsert of `batch.size`
 * secrets whose values change per request, so every batch really writes: of the same names each
 * time (updates), or with `batch.fresh` of new names each time (creates).
 *
 * Plain JavaScript: started with `node` directly, it costs no TypeScript loader.
 */
import http from "node:http";

const spec = JSON.parse(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections ?? 1 });
const url = new URL(spec.url);
const latencies = [];
const starts = [];
let non2xx = 0;
let sent = 0;
const t0 = performance.now();
const deadline = t0 + spec.seconds * 1000;

function bodyFor(n) {
  if (spec.batch) {
    const secrets = new Array(spec.batch.size);
    // `fresh`: new names every request (every batch creates); else the same names (every batch updates).
    const prefix = spec.batch.fresh ? `${spec.batch.prefix}_${process.pid}_${n}` : spec.batch.prefix;
    for (let i = 0; i < spec.batch.size; i++) secrets[i] = { secretKey: `${prefix}_${i}`, secretValue: `value-${n}-${i}-${"x".repeat(24)}` };
    return JSON.stringify({ ...spec.batch.fields, mode: "upsert", secrets });
  }
  return spec.body;
}

function once(n) {
  const body = bodyFor(n);
  const headers = { ...spec.headers };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = Buffer.byteLength(body);
  }
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request({ agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method: spec.method ?? "GET", headers }, (res) => {
      res.on("data", () => undefined);
      res.on("end", () => {
        latencies.push(performance.now() - started);
        starts.push(started - t0);
        if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
        resolve();
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function loop() {
  while (performance.now() < deadline && (spec.maxRequests === undefined || sent < spec.maxRequests)) {
    await once(sent++);
    if (spec.pauseMs) await new Promise((resolve) => setTimeout(resolve, spec.pauseMs));
  }
}

await Promise.all(Array.from({ length: spec.connections ?? 1 }, loop));
agent.destroy();
process.stdout.write(JSON.stringify({ latencies, starts, non2xx }) + "\n");
