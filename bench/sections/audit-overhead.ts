/**
 * What the audit log costs (issue #19), measured against the same work with auditing off, in one
 * run, on SQLite files:
 *
 * - Secret reads over HTTP (`GET /api/v4/secrets/{name}` by a member identity): CPU time of this
 *   process (user + system, so the batched inserts and their fsync count) per request served,
 *   with autocannon loading from a child process. Two instances, one with `audit: false`, seeded
 *   alike; rounds alternate so machine noise hits both; medians compared. Target: at most +15%.
 * - Batch upsert of 1,000 new secrets through the core (one transaction, one audit entry per
 *   secret written in it): wall time, rounds alternating, medians compared. Target: within 10%.
 *
 * Imports go through the package names, so the core and the adapters share one copy of the core:
 * run with a fresh build, or with `--conditions=source` to use the TypeScript sources.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anonymous, createStrongroom, generateRootKey, type Actor, type Strongroom } from "@strongroom/core";
import { createHandler } from "@strongroom/http-node";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { close, listen, loadTest } from "../load.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const READ_TARGET = 1.15;
const BATCH_TARGET = 1.1;
const BATCH = 1000;

interface Instance {
  sr: Strongroom;
  admin: Actor;
  projectId: string;
  /** A member identity's token and the path of one secret it may read. */
  token: string;
  path: string;
}

async function instance(dir: string, name: string, audit: boolean): Promise<Instance> {
  const sr = await createStrongroom({
    storage: await createSqliteStorage({ filename: join(dir, `${name}.db`) }),
    rootKey: generateRootKey(),
    ...(audit ? {} : { audit: false as const }),
  });
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
  return { sr, admin, projectId: project.id, token: accessToken, path: `/api/v4/secrets/SECRET_42?projectId=${project.id}&environment=prod&secretPath=%2F` };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** CPU µs per request of one load round against `url`. */
async function cpuPerRequest(url: string, token: string, seconds: number): Promise<{ micros: number; rps: number }> {
  const run = await loadTest(url, seconds, { headers: { authorization: `Bearer ${token}` } });
  if (run.non2xx > 0) throw new Error(`${run.non2xx} secret reads failed`);
  return { micros: run.cpuUsPerRequest, rps: run.rps };
}

async function readRows(on: Instance, off: Instance, options: BenchOptions): Promise<BenchRow> {
  const onServer = await listen(createHandler(on.sr, { logger: () => undefined }));
  const offServer = await listen(createHandler(off.sr, { logger: () => undefined }));
  try {
    const seconds = options.quick ? 2 : 5;
    const rounds = options.quick ? 2 : 5;
    // Warm-up, one uncounted round each as long as a counted one (as the batch rows do): JIT,
    // statement and key caches, the audit queue's first flushes. The flush path runs only every
    // 100 ms, so after one second it was still being compiled (on V8's helper threads, whose CPU
    // counts) through the first counted round, which then weighed on the median of two.
    await cpuPerRequest(onServer.url + on.path, on.token, seconds);
    await cpuPerRequest(offServer.url + off.path, off.token, seconds);
    const withAudit: number[] = [];
    const without: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so a drift in machine load is shared.
      const order = round % 2 === 0 ? ["on", "off"] : ["off", "on"];
      for (const which of order) {
        const target = which === "on" ? on : off;
        const url = (which === "on" ? onServer : offServer).url + target.path;
        const { micros, rps } = await cpuPerRequest(url, target.token, seconds);
        if (which === "on") await on.sr.audit.flush();
        (which === "on" ? withAudit : without).push(micros);
        options.log(`round ${round + 1} audit ${which}: ${micros.toFixed(0)} µs CPU/request, ${rps.toFixed(0)} req/s`);
      }
    }
    const ours = median(withAudit);
    const base = median(without);
    const ratio = ours / base;
    return {
      section: "secret read CPU per request, audit on (HTTP, SQLite)",
      ours: `${ours.toFixed(0)} µs/req`,
      baseline: `${base.toFixed(0)} µs/req audit off`,
      ratio: `${ratio.toFixed(2)}x (+${((ratio - 1) * 100).toFixed(0)}%)`,
      target: "<= +15% CPU",
      met: ratio <= READ_TARGET,
    };
  } finally {
    await close(onServer.server);
    await close(offServer.server);
  }
}

/** One round: a fresh folder, then 1,000 upserts into it (all created). Returns ms. */
async function batchRound(s: Instance, round: number): Promise<number> {
  const name = `round-${round}`;
  await s.sr.folders.create(s.admin, { projectId: s.projectId, environment: "dev", name });
  const secrets = Array.from({ length: BATCH }, (_, i) => ({ secretKey: `SECRET_${round}_${i}`, secretValue: `value-${round}-${i}-${"x".repeat(24)}`, secretComment: `comment ${i}` }));
  const start = performance.now();
  const result = await s.sr.secrets.updateMany(s.admin, { projectId: s.projectId, environment: "dev", secretPath: `/${name}`, mode: "upsert", secrets });
  const ms = performance.now() - start;
  if (result.secrets.length !== BATCH) throw new Error(`expected ${BATCH} secrets, got ${result.secrets.length}`);
  return ms;
}

async function batchRow(on: Instance, off: Instance, options: BenchOptions): Promise<BenchRow> {
  const rounds = options.quick ? 5 : 15;
  const withAudit: number[] = [];
  const without: number[] = [];
  // Round 0 warms both up and is not counted; the order alternates round by round.
  for (let round = 0; round <= rounds; round++) {
    let onMs: number;
    let offMs: number;
    if (round % 2 === 0) {
      onMs = await batchRound(on, round);
      offMs = await batchRound(off, round);
    } else {
      offMs = await batchRound(off, round);
      onMs = await batchRound(on, round);
    }
    if (round === 0) continue;
    withAudit.push(onMs);
    without.push(offMs);
    options.log(`round ${round}: audit on ${onMs.toFixed(1)} ms, off ${offMs.toFixed(1)} ms`);
  }
  const ours = median(withAudit);
  const base = median(without);
  const ratio = ours / base;
  return {
    section: "batch upsert 1,000, audit on (SQLite file)",
    ours: `${ours.toFixed(1)} ms`,
    baseline: `${base.toFixed(1)} ms audit off`,
    ratio: `${ratio.toFixed(2)}x (+${((ratio - 1) * 100).toFixed(0)}%)`,
    target: "<= +10%",
    met: ratio <= BATCH_TARGET,
  };
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-audit-"));
  const on = await instance(dir, "audit-on", true);
  const off = await instance(dir, "audit-off", false);
  try {
    return [await readRows(on, off, options), await batchRow(on, off, options)];
  } finally {
    await on.sr.close();
    await off.sr.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const section: BenchSection = { name: "audit-overhead", run };
export default section;
