/**
 * `GET /api/v4/secrets` (a v4 list with values) of 10, 1,000 and 10,000 secrets in one folder,
 * one request at a time over a keep-alive connection: p50 of a full answer (200) and of a
 * revalidation whose If-None-Match names the current ETag (304). The client (undici) runs in
 * this process, so each figure includes its share; the baseline is the same client fetching the
 * same body from a bare node:http server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { anonymous, createStrongroom, generateRootKey } from "@strongroom/core";
import { bufferedLogger, createHandler } from "@strongroom/http-node";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { close, listen } from "../load.js";
import { spread } from "../rounds.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const SIZES = [10, 1_000, 10_000];
const CHUNK = 1_000;

async function timed(agent: Agent, url: string, headers: Record<string, string>, times: number, expect: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    const res = await request(url, { dispatcher: agent, headers });
    await res.body.arrayBuffer();
    ms.push(performance.now() - t0);
    if (res.statusCode !== expect) throw new Error(`${url}: ${res.statusCode}, expected ${expect}`);
  }
  return ms;
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-list-"));
  const sr = await createStrongroom({ storage: await createSqliteStorage({ filename: join(dir, "strongroom.db") }), rootKey: generateRootKey() });
  const ours = await listen(createHandler(sr, { logger: bufferedLogger(join(dir, "requests.log")) }));
  const agent = new Agent({ connections: 1 });
  try {
    const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
    const admin = await sr.authenticate(boot.identity.credentials.token);
    const { project } = await sr.projects.create(admin, { projectName: "Bench" });
    const auth = { authorization: `Bearer ${boot.identity.credentials.token}` };
    const rows: BenchRow[] = [];
    for (const size of SIZES) {
      const t0 = performance.now();
      const secretPath = `/s${size}`;
      await sr.folders.create(admin, { projectId: project.id, environment: "prod", path: "/", name: `s${size}` });
      for (let from = 0; from < size; from += CHUNK) {
        const secrets = Array.from({ length: Math.min(CHUNK, size - from) }, (_, i) => ({ secretKey: `SECRET_${from + i}`, secretValue: `value-${from + i}-${"x".repeat(40)}` }));
        await sr.secrets.createMany(admin, { projectId: project.id, environment: "prod", secretPath, secrets });
      }
      options.log(`${size} secrets seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const url = `${ours.url}/api/v4/secrets?projectId=${project.id}&environment=prod&secretPath=${encodeURIComponent(secretPath)}`;
      const first = await request(url, { dispatcher: agent, headers: auth });
      const body = await first.body.text();
      const etag = first.headers.etag as string;
      const bare = await listen((_req, res) => {
        res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": String(Buffer.byteLength(body)) });
        res.end(body);
      });
      const bareAgent = new Agent({ connections: 1 });
      try {
        const n = size >= 10_000 ? (options.quick ? 3 : 15) : options.quick ? 10 : 50;
        await timed(agent, url, auth, 2, 200);
        const full = spread(await timed(agent, url, auth, n, 200));
        const revalidated = spread(await timed(agent, url, { ...auth, "if-none-match": etag }, n, 304));
        const floor = spread(await timed(bareAgent, bare.url, {}, n, 200));
        options.log(`${size}: 200 p50 ${full.median.toFixed(2)} ms (${full.min.toFixed(2)}–${full.max.toFixed(2)}), 304 p50 ${revalidated.median.toFixed(2)} ms, bare ${floor.median.toFixed(2)} ms, ${(body.length / 1024).toFixed(0)} KiB`);
        rows.push({
          section: `v4 list of ${size.toLocaleString("en")} (200 | 304)`,
          ours: `${full.median.toFixed(2)} ms | ${revalidated.median.toFixed(2)} ms p50`,
          baseline: `bare node:http, same body ${floor.median.toFixed(2)} ms`,
          ratio: `${(full.median / floor.median).toFixed(1)}x bare (200)`,
          target: size === 10_000 ? "200 <= 40 ms; 304 <= 2 ms" : "304 <= 2 ms",
          met: revalidated.median <= 2 && (size !== 10_000 || full.median <= 40),
        });
      } finally {
        await bareAgent.close();
        await close(bare.server);
      }
    }
    return rows;
  } finally {
    await agent.close();
    await close(ours.server);
    await sr.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const section: BenchSection = { name: "secret-list", run };
export default section;
