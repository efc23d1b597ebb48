/**
 * Where a secret read's server CPU goes, layer by layer: four servers in this process, measured
 * in turn under the same autocannon load (bench/load.ts), CPU time per request split into user and
 * system time:
 *  - bare: node:http answering the same body and headers (the floor);
 *  - direct: `authenticate` + `call` of `secrets.get`, the answer's JSON written as bare does;
 *  - adapter: `createHandler` with the request log off;
 *  - logged: `createHandler` with the buffered request log into a file.
 * Differences between them are the costs of the core, the adapter and the log.
 *
 *   npx tsx --conditions=source bench/read-layers.ts [seconds=2] [rounds=3] [audit=on|off]
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { RequestListener } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStrongroom, generateRootKey } from "@strongroom/core";
import { bufferedLogger, createHandler, newRequestId, silentLogger } from "@strongroom/http-node";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { close, listen, loadTest } from "./load.js";
import { READ, seed } from "./parts/read-seed.js";
import { spread } from "./rounds.js";

const [seconds = "2", rounds = "3", audit = "on"] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), "strongroom-read-layers-"));
const sr = await createStrongroom({
  storage: await createSqliteStorage({ filename: join(dir, "strongroom.db") }),
  rootKey: generateRootKey(),
  ...(audit === "off" ? { audit: false as const } : {}),
});
const { token, path } = await seed(sr);
const headers = { authorization: `Bearer ${token}` };
const query = new URL(path, "http://localhost").searchParams;
const input = { secretName: READ, projectId: query.get("projectId"), environment: "prod", secretPath: "/" };

const answer = (res: Parameters<RequestListener>[1], body: string) => {
  res.writeHead(200, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "content-length": String(Buffer.byteLength(body)),
    "x-request-id": newRequestId(),
  });
  res.end(body);
};
const adapter = await listen(createHandler(sr, { logger: silentLogger }));
const body = await (await fetch(adapter.url + path, { headers })).text();
const servers = {
  bare: await listen((_req, res) => answer(res, body)),
  direct: await listen(async (req, res) => {
    const actor = await sr.authenticate(req.headers.authorization!.slice("Bearer ".length), { ip: "127.0.0.1" });
    answer(res, JSON.stringify(await sr.call(sr.operations.secrets.get, actor, { ...input })));
  }),
  adapter,
  logged: await listen(createHandler(sr, { logger: bufferedLogger(join(dir, "requests.log")) })),
};
try {
  for (const { url } of Object.values(servers)) await loadTest(url + path, 1, { headers });
  const samples = Object.fromEntries(Object.keys(servers).map((name) => [name, [] as { user: number; system: number }[]]));
  for (let round = 0; round < Number(rounds); round++) {
    for (const [name, { url }] of Object.entries(servers)) {
      const before = process.cpuUsage();
      const result = await loadTest(url + path, Number(seconds), { headers });
      const used = process.cpuUsage(before);
      const requests = (used.user + used.system) / result.cpuUsPerRequest;
      samples[name]!.push({ user: used.user / requests, system: used.system / requests });
    }
  }
  for (const [name, list] of Object.entries(samples)) {
    const total = spread(list.map((s) => s.user + s.system));
    const user = spread(list.map((s) => s.user)).median;
    console.log(`${name}: ${total.median.toFixed(1)} µs/request (${total.min.toFixed(1)}–${total.max.toFixed(1)}), user ${user.toFixed(1)}`);
  }
} finally {
  for (const { server } of Object.values(servers)) await close(server);
  await sr.close();
  rmSync(dir, { recursive: true, force: true });
}
