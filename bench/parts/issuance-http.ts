/**
 * Certificate issuance as users get it: `POST /api/v1/cert-manager/certificates` over HTTP
 * (authentication, permission checks, profile and CA lookups, key generation, the certificate,
 * signing, sealing the private key, the insert, the JSON answer), 16 requests in flight from
 * autocannon in a child process, against raw node:crypto generating the same key and making one
 * signature with 16 in flight in this process. Rounds alternate; the ratio is the median of the
 * per-round ratios.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anonymous, createStrongroom, generateRootKey } from "@strongroom/core";
import { bufferedLogger, createHandler } from "@strongroom/http-node";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { close, listen, loadTest } from "../load.js";
import { alternate, formatRate, spread } from "../rounds.js";
import type { BenchOptions, BenchRow } from "../types.js";
import { rawKeygenAndSign } from "./raw-keygen.js";

const IN_FLIGHT = 16;

interface Plan {
  row: string;
  keyAlgorithm: "EC_prime256v1" | "RSA_2048";
  target: string;
  minRatio: number | null;
  seconds: { quick: number; full: number };
  rounds: { quick: number; full: number };
}

const PLANS: Plan[] = [
  { row: "issuance over HTTP, EC P-256", keyAlgorithm: "EC_prime256v1", target: ">= 30% of raw node:crypto", minRatio: 0.3, seconds: { quick: 1, full: 3 }, rounds: { quick: 3, full: 5 } },
  { row: "issuance over HTTP, RSA-2048", keyAlgorithm: "RSA_2048", target: "informational", minRatio: null, seconds: { quick: 0, full: 4 }, rounds: { quick: 0, full: 3 } },
];

/** `op` with `inFlight` calls outstanding for `ms`; returns completions per second. */
async function concurrently(op: () => Promise<void>, ms: number, inFlight: number): Promise<number> {
  const start = performance.now();
  let done = 0;
  const worker = async () => {
    while (performance.now() - start < ms) {
      await op();
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return (done * 1000) / (performance.now() - start);
}

export async function overHttp(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-issue-"));
  const sr = await createStrongroom({ storage: await createSqliteStorage({ filename: join(dir, "strongroom.db") }), rootKey: generateRootKey() });
  const running = await listen(createHandler(sr, { logger: bufferedLogger(join(dir, "requests.log")) }));
  try {
    const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
    const token = boot.identity.credentials.token;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(running.url + path, { method: "POST", headers, body: JSON.stringify(body) });
      const json = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const { project } = await post("/api/v2/workspace", { projectName: "Bench PKI", type: "cert-manager" });
    const rows: BenchRow[] = [];
    for (const plan of PLANS) {
      // RSA key generation (tens of milliseconds each) has no place in the quick run.
      if (plan.rounds[options.quick ? "quick" : "full"] === 0) continue;
      const { ca } = await post("/api/v1/cert-manager/ca/internal", {
        projectId: project.id, name: `root-${plan.keyAlgorithm.toLowerCase().replace("_", "-")}`, type: "root",
        commonName: "Bench Root CA", keyAlgorithm: plan.keyAlgorithm, ttlDays: 365,
      });
      const { certificateProfile } = await post("/api/v1/cert-manager/certificate-profiles", {
        projectId: project.id, slug: `web-${plan.keyAlgorithm.toLowerCase().replace("_", "-")}`, issuerType: "ca", caId: ca.id,
        defaults: { ttlDays: 30, keyAlgorithm: plan.keyAlgorithm, keyUsages: ["digital_signature", "key_encipherment"], extendedKeyUsages: ["server_auth"] },
      });
      const body = JSON.stringify({ profileId: certificateProfile.id, attributes: { commonName: "bench.example.com", altNames: [{ type: "dns_name", value: "bench.example.com" }], ttl: "30d" } });
      const url = `${running.url}/api/v1/cert-manager/certificates`;
      const caKey = plan.keyAlgorithm === "RSA_2048" ? generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey : generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey;
      const tbs = randomBytes(600);
      const mode = options.quick ? "quick" : "full";
      const seconds = plan.seconds[mode];
      await loadTest(url, 1, { method: "POST", headers, body, connections: IN_FLIGHT });
      const samples = await alternate(plan.rounds[mode], {
        ours: async () => {
          const result = await loadTest(url, seconds, { method: "POST", headers, body, connections: IN_FLIGHT });
          if (result.non2xx > 0) throw new Error(`${plan.row}: ${result.non2xx} issuances failed`);
          return result.rps;
        },
        raw: () => concurrently(() => rawKeygenAndSign(plan.keyAlgorithm, "sha256", tbs, caKey), seconds * 1000, IN_FLIGHT),
      });
      const ours = spread(samples.ours!);
      const raw = spread(samples.raw!);
      const ratio = spread(samples.ours!.map((r, i) => r / samples.raw![i]!));
      options.log(`${plan.row}: ours ${formatRate(ours, "certs/s")}, raw ${formatRate(raw, "ops/s")}`);
      rows.push({
        section: plan.row,
        ours: formatRate(ours, "certs/s"),
        baseline: `raw node:crypto keygen + sign ${formatRate(raw, "ops/s")}`,
        ratio: `${(ratio.median * 100).toFixed(0)}% (${(ratio.min * 100).toFixed(0)}–${(ratio.max * 100).toFixed(0)}%)`,
        target: plan.target,
        met: plan.minRatio === null || ratio.median >= plan.minRatio,
      });
    }
    return rows;
  } finally {
    await close(running.server);
    await sr.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
