/**
 * Key rotation (`strongroom rotate-data-keys`, `rotate-root-key`), on SQLite file storage.
 *
 * - Data keys: a project's secrets and versions moved to a fresh data key in batches
 *   (`rotateProjectDataKey`, notice waits skipped: one node in-process), against the floor of the
 *   same cryptographic work alone — node:crypto AES-256-GCM open and seal of the same sealed
 *   values plus the HMAC blind index, with no storage. Reported as rows per second; no fixed target.
 * - Root key: every data key rewrapped in one transaction (`rotateRootKey`), for an instance with
 *   many projects; reported as keys per second against the same AES-GCM work alone.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anonymous, createStrongroom, generateRootKey } from "@strongroom/core";
import { parseRootKey, rotateProjectDataKey, rotateRootKey } from "@strongroom/core/maintenance";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

/** Open and seal again, as the rotation does per row, with no storage: the floor it cannot beat. */
function cryptoFloor(sealed: { iv: Buffer; tag: Buffer; ciphertext: Buffer }[], from: Buffer, to: Buffer, aad: Buffer): number {
  const t0 = process.hrtime.bigint();
  for (const s of sealed) {
    const decipher = createDecipheriv("aes-256-gcm", from, s.iv);
    decipher.setAAD(aad);
    decipher.setAuthTag(s.tag);
    const plain = Buffer.concat([decipher.update(s.ciphertext), decipher.final()]);
    const cipher = createCipheriv("aes-256-gcm", to, randomBytes(12));
    cipher.setAAD(aad);
    Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    createHmac("sha256", to).update(plain.subarray(0, 16)).digest("hex");
  }
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

function sampleSeals(n: number, key: Buffer, aad: Buffer, size: number) {
  return Array.from({ length: n }, () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(aad);
    const ciphertext = Buffer.concat([cipher.update(randomBytes(size)), cipher.final()]);
    return { iv, tag: cipher.getAuthTag(), ciphertext };
  });
}

async function dataKeys(options: BenchOptions): Promise<BenchRow> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-rotation-"));
  const sr = await createStrongroom({ storage: await createSqliteStorage({ filename: join(dir, "s.db") }), rootKey: generateRootKey(), log: () => {} });
  try {
    const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
    const admin = await sr.authenticate(boot.identity.credentials.token);
    const { project } = await sr.projects.create(admin, { projectName: "Rotating" });
    const secretsN = options.quick ? 2_000 : 10_000;
    const at = { projectId: project.id, environment: "dev", secretPath: "/" };
    for (let start = 0; start < secretsN; start += 1_000) {
      const secrets = Array.from({ length: 1_000 }, (_, i) => ({ secretKey: `S_${start + i}`, secretValue: `value-${start + i}-${"v".repeat(40)}` }));
      await sr.secrets.createMany(admin, { ...at, secrets });
    }
    const updated = secretsN / 10;
    for (let i = 0; i < updated; i++) await sr.secrets.update(admin, { ...at, secretName: `S_${i}`, secretValue: `updated-${i}` });
    const rows = secretsN + updated;

    const t0 = process.hrtime.bigint();
    const report = await rotateProjectDataKey(sr.context, project.id, { sleep: async () => {} });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (report.moved.secrets !== rows) throw new Error(`moved ${report.moved.secrets} of ${rows} rows`);
    const floor = cryptoFloor(sampleSeals(rows, randomBytes(32), Buffer.from("secret:x"), 80), randomBytes(32), randomBytes(32), Buffer.from("secret:x"));
    const ours = rows / seconds;
    const baseline = rows / floor;
    options.log(`${rows} rows in ${seconds.toFixed(2)} s (${report.passes} passes); crypto alone ${floor.toFixed(2)} s`);
    return {
      section: `Data-key rotation, ${rows} secrets + versions (SQLite)`,
      ours: `${ours.toFixed(0)} rows/s`,
      baseline: `${baseline.toFixed(0)} rows/s AES-GCM+HMAC alone`,
      ratio: `${(ours / baseline).toFixed(2)}x`,
      target: "reported (no target)",
      met: true,
    };
  } finally {
    await sr.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function rootKey(options: BenchOptions): Promise<BenchRow> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-root-"));
  const storage = await createSqliteStorage({ filename: join(dir, "s.db") });
  const key = generateRootKey();
  const sr = await createStrongroom({ storage, rootKey: key, log: () => {} });
  try {
    const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
    const admin = await sr.authenticate(boot.identity.credentials.token);
    const projects = options.quick ? 200 : 1_000;
    for (let i = 0; i < projects; i++) await sr.projects.create(admin, { projectName: `P${i}` });
    const keys = await storage.tables.kmsKeys.count();
    const t0 = process.hrtime.bigint();
    await rotateRootKey(storage, parseRootKey(key), parseRootKey(generateRootKey()));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const floor = cryptoFloor(sampleSeals(keys, randomBytes(32), Buffer.from("key-id"), 32), randomBytes(32), randomBytes(32), Buffer.from("key-id"));
    options.log(`${keys} data keys in ${seconds.toFixed(3)} s; crypto alone ${floor.toFixed(3)} s`);
    return {
      section: `Root-key rotation, ${keys} data keys, one transaction (SQLite)`,
      ours: `${(keys / seconds).toFixed(0)} keys/s`,
      baseline: `${(keys / floor).toFixed(0)} keys/s AES-GCM alone`,
      ratio: `${(floor / seconds).toFixed(2)}x`,
      target: "reported (no target)",
      met: true,
    };
  } finally {
    await sr.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const section: BenchSection = {
  name: "key rotation",
  run: async (options) => [await dataKeys(options), await rootKey(options)],
};
export default section;
