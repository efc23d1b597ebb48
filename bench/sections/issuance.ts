/**
 * Certificate issuance throughput: issueCertificate (key generation, DER building, signing, PEM,
 * fingerprint) against raw node:crypto doing only the same key generation and one signature
 * over as many bytes as the certificate has. The CA is created and prepared once, as the
 * certificate manager keeps it. Short rounds of the two alternate, and the ratio is the median
 * of the per-round ratios, so load from other processes hits both sides alike and a noisy
 * round cannot swing the result.
 */
import { createPrivateKey } from "node:crypto";
import {
  type KeyAlgorithm,
  SIGNATURE_ALGORITHM_SPECS,
  createRootCa,
  defaultSignatureAlgorithm,
  issueCertificate,
  pemBlocks,
  prepareIssuer,
} from "../../packages/core/src/entries/x509.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";
import { overHttp } from "../parts/issuance-http.js";
import { rawKeygenAndSign } from "../parts/raw-keygen.js";

const DAY = 86_400_000;

interface Plan {
  row: string;
  keyAlgorithm: KeyAlgorithm;
  target: string;
  /** Minimum ours/raw ratio, or null when the row is informational. */
  minRatio: number | null;
  /** Before measuring, long enough for the JIT to settle on our code, which is far more JavaScript than raw's. */
  warmupMs: number;
  roundMs: { quick: number; full: number };
  rounds: { quick: number; full: number };
}

const PLANS: Plan[] = [
  {
    row: "certificate builder EC P-256 (in process)",
    keyAlgorithm: "EC_prime256v1",
    target: "informational (the HTTP row has the target)",
    minRatio: null,
    warmupMs: 400,
    roundMs: { quick: 100, full: 250 },
    rounds: { quick: 14, full: 40 },
  },
  {
    // RSA key generation (tens of ms, widely varying) dominates both sides.
    row: "certificate builder RSA-2048 (in process)",
    keyAlgorithm: "RSA_2048",
    target: "informational",
    minRatio: null,
    warmupMs: 200,
    roundMs: { quick: 400, full: 1500 },
    rounds: { quick: 2, full: 10 },
  },
];

/** Runs `op` back to back for `ms`; returns operations done and time taken. */
async function runFor(op: () => Promise<unknown>, ms: number): Promise<{ ops: number; ms: number }> {
  const start = performance.now();
  let ops = 0;
  while (performance.now() - start < ms) {
    await op();
    ops++;
  }
  return { ops, ms: performance.now() - start };
}

const perSecond = (ops: number, ms: number) => (ops * 1000) / ms;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const format = (rate: number, unit: string) => (rate >= 1000 ? `${(rate / 1000).toFixed(2)}k ${unit}` : `${rate.toFixed(1)} ${unit}`);

async function measure(plan: Plan, options: BenchOptions): Promise<BenchRow> {
  const now = new Date();
  const ca = await createRootCa({ commonName: "Bench CA", keyAlgorithm: plan.keyAlgorithm, ttlMs: 3650 * DAY, now });
  const issuer = prepareIssuer({ certificatePem: ca.certificatePem, privateKeyPem: ca.privateKeyPem! });
  const caKey = createPrivateKey(ca.privateKeyPem!);
  const ours = () =>
    issueCertificate({
      issuer,
      subject: { commonName: "bench.example.com", organization: "Strongroom" },
      keyAlgorithm: plan.keyAlgorithm,
      keyUsages: ["digital_signature", "key_encipherment"],
      extendedKeyUsages: ["server_auth"],
      subjectAltNames: [{ type: "dns_name", value: "bench.example.com" }],
      ttlMs: 90 * DAY,
      now,
    });
  const sample = await ours();
  const bytes = pemBlocks(sample.certificatePem)[0]!.der;
  const hash = SIGNATURE_ALGORITHM_SPECS[defaultSignatureAlgorithm(plan.keyAlgorithm)].hash;
  const raw = () => rawKeygenAndSign(plan.keyAlgorithm, hash, bytes, caKey);

  const mode = options.quick ? "quick" : "full";
  const roundMs = plan.roundMs[mode];
  await runFor(ours, plan.warmupMs);
  await runFor(raw, plan.warmupMs / 2);
  const totals = { ours: { ops: 0, ms: 0 }, raw: { ops: 0, ms: 0 } };
  const ratios: number[] = [];
  for (let round = 0; round < plan.rounds[mode]; round++) {
    // Alternate which goes first so neither always follows the other's garbage.
    const order = round % 2 === 0 ? (["ours", "raw"] as const) : (["raw", "ours"] as const);
    const rates = { ours: 0, raw: 0 };
    for (const side of order) {
      const result = await runFor(side === "ours" ? ours : raw, roundMs);
      totals[side].ops += result.ops;
      totals[side].ms += result.ms;
      rates[side] = perSecond(result.ops, result.ms);
    }
    ratios.push(rates.ours / rates.raw);
  }
  options.log(`${plan.row}: ${totals.ours.ops} certificates, ${totals.raw.ops} raw key+signature pairs in ${ratios.length} rounds`);
  const oursRate = perSecond(totals.ours.ops, totals.ours.ms);
  const rawRate = perSecond(totals.raw.ops, totals.raw.ms);
  const ratio = median(ratios);
  return {
    section: plan.row,
    ours: format(oursRate, "certs/s"),
    baseline: `${format(rawRate, "ops/s")} (raw node:crypto keygen + sign)`,
    ratio: `${ratio.toFixed(2)}x (${Math.round(ratio * 100)}%, median of rounds)`,
    target: plan.target,
    met: plan.minRatio === null || ratio >= plan.minRatio,
  };
}

const section: BenchSection = {
  name: "issuance",
  async run(options) {
    const rows: BenchRow[] = [];
    // RSA key generation (tens of milliseconds each, widely varying) is left to the full run.
    for (const plan of PLANS) if (!options.quick || plan.keyAlgorithm !== "RSA_2048") rows.push(await measure(plan, options));
    rows.push(...(await overHttp(options)));
    return rows;
  },
};

export default section;
