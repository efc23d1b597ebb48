/**
 * Authenticated single-secret reads over HTTP (`GET /api/v4/secrets/{name}`: token lookup,
 * project access, environment, blind-index lookup, decryption, permission check, JSON) by a
 * machine identity with the built-in member role, on SQLite file storage, against a bare
 * node:http server answering a fixed JSON body. Both servers run in this process; autocannon
 * runs in a child process with the same connections and duration, so load generation never
 * shares the servers' event loop. Request logging is off on ours: where log lines go (a terminal,
 * a pipe, a file) would decide the figure more than the server does.
 *
 * Imports go through the package names, so the core and the adapters share one copy of the core:
 * run with a fresh build, or with `--conditions=source` to use the TypeScript sources.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { anonymous, createStrongroom, generateRootKey, type Strongroom } from "@strongroom/core";
import { createHandler } from "@strongroom/http-node";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const TARGET = 0.5;
const CONNECTIONS = 16;

const autocannonBin = createRequire(import.meta.url).resolve("autocannon/autocannon.js");

/** Requests per second autocannon (in a child process) reaches against `url`. */
function loadTest(url: string, seconds: number, headers: Record<string, string> = {}): Promise<{ rps: number; non2xx: number }> {
  const args = [autocannonBin, "--json", "-c", String(CONNECTIONS), "-d", String(seconds), ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`]), url];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const result = JSON.parse(stdout) as { requests: { average: number }; non2xx: number; errors: number };
      if (result.errors > 0) return reject(new Error(`autocannon saw ${result.errors} connection errors`));
      resolve({ rps: result.requests.average, non2xx: result.non2xx });
    });
  });
}

function listen(listener: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(listener);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

const HELLO = JSON.stringify({ hello: "world" });
const bare: RequestListener = (_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(HELLO)) });
  res.end(HELLO);
};

/** An instance with one project secret and the token of a member identity that may read it. */
async function seed(sr: Strongroom): Promise<{ token: string; path: string }> {
  const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
  const admin = await sr.authenticate(boot.identity.credentials.token);
  const { project } = await sr.projects.create(admin, { projectName: "Bench" });
  const { identity } = await sr.identities.create(admin, { name: "reader", organizationId: boot.organization.id, role: "member" });
  const { identityUniversalAuth } = await sr.identities.attachUniversalAuth(admin, { identityId: identity.id });
  const { clientSecret } = await sr.identities.createClientSecret(admin, { identityId: identity.id });
  await sr.memberships.addIdentity(admin, { projectId: project.id, identityId: identity.id, role: "member" });
  const { accessToken } = await sr.auth.universalAuthLogin(anonymous, { clientId: identityUniversalAuth.clientId, clientSecret });
  await sr.secrets.createMany(admin, {
    projectId: project.id,
    environment: "prod",
    secretPath: "/",
    secrets: Array.from({ length: 200 }, (_, i) => ({ secretKey: `SECRET_${i}`, secretValue: `value-${i}-${"x".repeat(40)}` })),
  });
  return { token: accessToken, path: `/api/v4/secrets/SECRET_42?projectId=${project.id}&environment=prod&secretPath=%2F` };
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-read-"));
  const sr = await createStrongroom({ storage: await createSqliteStorage({ filename: join(dir, "strongroom.db") }), rootKey: generateRootKey() });
  try {
    const { token, path } = await seed(sr);
    const ours = await listen(createHandler(sr, { logger: () => undefined }));
    const baseline = await listen(bare);
    const seconds = options.quick ? 3 : 10;
    const auth = { authorization: `Bearer ${token}` };
    try {
      await loadTest(ours.url + path, 1, auth); // warm-up: JIT, statement and key caches
      await loadTest(baseline.url, 1);
      const bareRun = await loadTest(baseline.url, seconds);
      const oursRun = await loadTest(ours.url + path, seconds, auth);
      if (oursRun.non2xx > 0) throw new Error(`${oursRun.non2xx} secret reads failed`);
      options.log(`bare ${bareRun.rps.toFixed(0)} req/s, ours ${oursRun.rps.toFixed(0)} req/s`);
      const ratio = oursRun.rps / bareRun.rps;
      return [
        {
          section: "secret read over HTTP (SQLite)",
          ours: `${oursRun.rps.toFixed(0)} req/s`,
          baseline: `${bareRun.rps.toFixed(0)} req/s bare node:http`,
          ratio: `${(ratio * 100).toFixed(0)}%`,
          target: ">= 50% of bare",
          met: ratio >= TARGET,
        },
      ];
    } finally {
      await close(ours.server);
      await close(baseline.server);
    }
  } finally {
    await sr.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const section: BenchSection = { name: "secret-read-http", run };
export default section;
