/**
 * Batch upsert of 1,000 secrets through the core (PATCH /api/v4/secrets/batch's operation, mode
 * upsert of new names: input validation, permission checks, one encryption per secret, blind
 * index, existence check, rows, one transaction) on SQLite file storage, against the same 1,000
 * stored rows inserted raw with better-sqlite3 in one transaction, with one prepared statement,
 * into a table with the same columns and indexes in a file opened in WAL mode too. Rounds
 * alternate so machine noise hits both alike; medians are compared.
 *
 * Imports go through the package names, so the core and the adapters share one copy of the core:
 * run with a fresh build, or with `--conditions=source` to use the TypeScript sources.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { anonymous, createStrongroom, generateRootKey, type Actor, type Strongroom } from "@strongroom/core";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const BATCH = 1000;
const TARGET_RATIO = 3;

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

const items = (round: number) =>
  Array.from({ length: BATCH }, (_, i) => ({
    secretKey: `SECRET_${round}_${i}`,
    secretValue: `value-${round}-${i}-${"x".repeat(24)}`,
    secretComment: `comment ${i}`,
  }));

/** One core round: a fresh folder, then 1,000 upserts into it (all created). Returns ms. */
async function coreRound(s: Setup, round: number): Promise<number> {
  const name = `round-${round}`;
  await s.sr.folders.create(s.admin, { projectId: s.projectId, environment: "dev", name });
  const start = performance.now();
  const { secrets } = await s.sr.secrets.updateMany(s.admin, {
    projectId: s.projectId,
    environment: "dev",
    secretPath: `/${name}`,
    mode: "upsert",
    secrets: items(round),
  });
  const ms = performance.now() - start;
  if (secrets.length !== BATCH) throw new Error(`expected ${BATCH} secrets, got ${secrets.length}`);
  return ms;
}

/** What the core stored for one round, read through a second connection: its rows, and the DDL of its table and indexes. */
function stored(reader: Database.Database, folderPath: string): { rows: Record<string, unknown>[]; ddl: string[] } {
  const folder = reader.prepare("select id from secret_folders where path = ?").get(folderPath) as { id: string };
  const rows = reader.prepare("select * from secrets where folderId = ?").all(folder.id) as Record<string, unknown>[];
  const ddl = reader.prepare("select sql from sqlite_master where tbl_name = 'secrets' and sql is not null").pluck().all() as string[];
  return { rows, ddl };
}

/** One raw round: the same rows into an identical table (same columns and indexes), one transaction. Returns ms. */
function rawRound(raw: Database.Database, { rows, ddl }: { rows: Record<string, unknown>[]; ddl: string[] }, round: number): number {
  const columns = Object.keys(rows[0]);
  const table = `secrets_raw_${round}`;
  // `"secrets"` and the `"secrets_…"` index names, renamed for this round's copy.
  for (const statement of ddl) raw.exec(statement.replace(/"secrets(?=["_])/g, `"${table}`));
  const insert = raw.prepare(`insert into "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values (${columns.map(() => "?").join(", ")})`);
  const start = performance.now();
  raw.transaction(() => {
    for (const row of rows) insert.run(columns.map((c) => row[c]));
  })();
  return performance.now() - start;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-batch-"));
  const s = await setUp(dir);
  try {
    const rounds = options.quick ? 5 : 15;
    const ours: number[] = [];
    const raw: number[] = [];
    // Round 0 warms both up (JIT, key cache, statement caches) and is not counted.
    for (let round = 0; round <= rounds; round++) {
      const coreMs = await coreRound(s, round);
      const rawMs = rawRound(s.raw, stored(s.reader, `/round-${round}`), round);
      if (round === 0) continue;
      ours.push(coreMs);
      raw.push(rawMs);
      options.log(`round ${round}: core ${coreMs.toFixed(1)} ms, raw ${rawMs.toFixed(1)} ms`);
    }
    const oursMs = median(ours);
    const rawMs = median(raw);
    const ratio = oursMs / rawMs;
    return [
      {
        section: "secrets batch upsert (1,000, SQLite file)",
        ours: `${oursMs.toFixed(1)} ms`,
        baseline: `${rawMs.toFixed(1)} ms raw better-sqlite3`,
        ratio: `${ratio.toFixed(2)}x`,
        target: `<= ${TARGET_RATIO}x raw`,
        met: ratio <= TARGET_RATIO,
      },
    ];
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const section: BenchSection = { name: "secrets-batch", run };
export default section;
