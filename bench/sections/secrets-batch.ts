/**
 * Batch upsert of 1,000 and of 10,000 secrets through the core (PATCH /api/v4/secrets/batch's
 * operation, mode upsert of new names: input validation, permission checks, one encryption per
 * secret, blind index, existence check, rows, one transaction) on SQLite file storage, against the
 * floor: the same secrets sealed the same way (AES-256-GCM of the same plaintext bound to the
 * row id, IVs cut from one random block, HMAC-SHA256 blind index of the name, straight
 * node:crypto) and inserted raw with better-sqlite3 in one transaction, with one prepared
 * statement, into a table with the same columns and indexes in a file opened in WAL mode too.
 * Rounds alternate so machine noise hits both alike; medians are compared, per-round figures
 * give the spread.
 *
 * Imports go through the package names, so the core and the adapters share one copy of the core:
 * run with a fresh build, or with `--conditions=source` to use the TypeScript sources.
 */
import { createCipheriv, createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { anonymous, createStrongroom, generateRootKey, type Actor, type Strongroom } from "@strongroom/core";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const SIZES = [1_000, 10_000] as const;
/** Items one batch request may carry (the API's limit): 10,000 go as two batches, on both sides. */
const PER_BATCH = 5_000;
const TARGET_RATIO = 1.5;

interface Setup {
  sr: Strongroom;
  admin: Actor;
  projectId: string;
  raw: Database.Database;
  reader: Database.Database;
  close(): Promise<void>;
}

async function setUp(dir: string): Promise<Setup> {
  const sr = await createStrongroom({ storage: await createSqliteStorage({ filename: join(dir, "strongroom.db") }), rootKey: generateRootKey() });
  const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
  const admin = await sr.authenticate(boot.identity.credentials.token);
  const { project } = await sr.projects.create(admin, { projectName: "Bench" });
  const raw = new Database(join(dir, "raw.db"));
  raw.pragma("journal_mode = WAL");
  raw.pragma("foreign_keys = ON");
  const reader = new Database(join(dir, "strongroom.db"), { readonly: true });
  return {
    sr,
    admin,
    projectId: project.id,
    raw,
    reader,
    async close() {
      reader.close();
      raw.close();
      await sr.close();
    },
  };
}

const items = (size: number, round: number) =>
  Array.from({ length: size }, (_, i) => ({
    secretKey: `SECRET_${round}_${i}`,
    secretValue: `value-${round}-${i}-${"x".repeat(24)}`,
    secretComment: `comment ${i}`,
  }));

/** One core round: a fresh folder, then `size` upserts into it (all created). Returns ms. */
async function coreRound(s: Setup, size: number, round: number): Promise<number> {
  const name = `round-${size}-${round}`;
  await s.sr.folders.create(s.admin, { projectId: s.projectId, environment: "dev", name });
  const all = items(size, round);
  const start = performance.now();
  let written = 0;
  for (let from = 0; from < size; from += PER_BATCH) {
    const { secrets } = await s.sr.secrets.updateMany(s.admin, {
      projectId: s.projectId,
      environment: "dev",
      secretPath: `/${name}`,
      mode: "upsert",
      secrets: all.slice(from, from + PER_BATCH),
    });
    written += secrets.length;
  }
  const ms = performance.now() - start;
  if (written !== size) throw new Error(`expected ${size} secrets, got ${written}`);
  return ms;
}

/** What the core stored for one round, read through a second connection: its rows, and the DDL of its table and indexes. */
function stored(reader: Database.Database, folderPath: string): { rows: Record<string, unknown>[]; ddl: string[] } {
  const folder = reader.prepare("select id from secret_folders where path = ?").get(folderPath) as { id: string };
  const rows = reader.prepare("select * from secrets where folderId = ?").all(folder.id) as Record<string, unknown>[];
  const ddl = reader.prepare("select sql from sqlite_master where tbl_name = 'secrets' and sql is not null").pluck().all() as string[];
  return { rows, ddl };
}

/**
 * One floor round: the same secrets sealed and indexed with node:crypto, into an identical table
 * (same columns and indexes), one transaction. Returns ms. The columns that hold no secret are
 * copied from what the core stored.
 */
function rawRound(
  raw: Database.Database,
  keys: { data: Buffer; blind: Buffer },
  plain: ReturnType<typeof items>,
  { rows, ddl }: { rows: Record<string, unknown>[]; ddl: string[] },
  tag: string,
): number {
  const columns = Object.keys(rows[0]);
  const table = `secrets_raw_${tag}`;
  // `"secrets"` and the `"secrets_…"` index names, renamed for this round's copy.
  for (const statement of ddl) raw.exec(statement.replace(/"secrets(?=["_])/g, `"${table}`));
  const insert = raw.prepare(`insert into "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values (${columns.map(() => "?").join(", ")})`);
  const start = performance.now();
  const ivs = randomBytes(12 * rows.length);
  const sealedRows = rows.map((row, i) => {
    const iv = ivs.subarray(12 * i, 12 * i + 12);
    const cipher = createCipheriv("aes-256-gcm", keys.data, iv);
    cipher.setAAD(Buffer.from(`secret:${row.id as string}`));
    const { secretKey, secretValue, secretComment } = plain[i];
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify([secretKey, secretValue, secretComment, []])), cipher.final()]);
    const sealed = `${iv.toString("base64")}.${cipher.getAuthTag().toString("base64")}.${ciphertext.toString("base64")}`;
    const keyHash = createHmac("sha256", keys.blind).update(secretKey).digest("hex");
    return columns.map((c) => (c === "sealed" ? sealed : c === "keyHash" ? keyHash : row[c]));
  });
  for (let from = 0; from < sealedRows.length; from += PER_BATCH) {
    raw.transaction(() => {
      for (const values of sealedRows.slice(from, from + PER_BATCH)) insert.run(values);
    })();
  }
  return performance.now() - start;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-batch-"));
  const s = await setUp(dir);
  const keys = { data: randomBytes(32), blind: randomBytes(32) };
  try {
    const rows: BenchRow[] = [];
    for (const size of SIZES) {
      const rounds = size >= 10_000 ? (options.quick ? 2 : 5) : options.quick ? 5 : 15;
      const ours: number[] = [];
      const floor: number[] = [];
      // Round 0 warms both up (JIT, key cache, statement caches) and is not counted.
      for (let round = 0; round <= rounds; round++) {
        const cpu0 = process.cpuUsage();
        const coreMs = await coreRound(s, size, round);
        const coreCpu = process.cpuUsage(cpu0);
        // The stored rows' order is the index's, so the plaintexts are matched to them by name.
        const written = stored(s.reader, `/round-${size}-${round}`);
        const byKey = new Map(items(size, round).map((item) => [item.secretKey, item]));
        const ids = new Map((await s.sr.secrets.list(s.admin, { projectId: s.projectId, environment: "dev", secretPath: `/round-${size}-${round}` })).secrets.map((x) => [x.id, x.secretKey]));
        const plain = written.rows.map((row) => byKey.get(ids.get(row.id as string)!)!);
        const cpu1 = process.cpuUsage();
        const rawMs = rawRound(s.raw, keys, plain, written, `${size}_${round}`);
        const rawCpu = process.cpuUsage(cpu1);
        const cpuMs = (c: NodeJS.CpuUsage) => ((c.user + c.system) / 1000).toFixed(1);
        if (round === 0) continue;
        ours.push(coreMs);
        floor.push(rawMs);
        options.log(`${size} round ${round}: core ${coreMs.toFixed(1)} ms (${cpuMs(coreCpu)} ms CPU), floor ${rawMs.toFixed(1)} ms (${cpuMs(rawCpu)} ms CPU)`);
      }
      const oursMs = median(ours);
      const floorMs = median(floor);
      const ratio = oursMs / floorMs;
      const range = (values: number[]) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;
      rows.push({
        section: `secrets batch upsert (${size.toLocaleString("en")}${size > PER_BATCH ? ` as ${size / PER_BATCH} batches` : ""}, SQLite file)`,
        ours: `${oursMs.toFixed(1)} ms (rounds ${range(ours)})`,
        baseline: `${floorMs.toFixed(1)} ms same encryption + raw better-sqlite3 (rounds ${range(floor)})`,
        ratio: `${ratio.toFixed(2)}x`,
        target: `<= ${TARGET_RATIO}x floor`,
        met: ratio <= TARGET_RATIO,
      });
    }
    return rows;
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const section: BenchSection = { name: "secrets-batch", run };
export default section;
