import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { generateRootKey } from "@strongroom/core";
import { withPostgres, type TestDatabase } from "@strongroom/storage-postgres/testing";
import { call, spawnServer, type ServerProcess } from "../helpers/spawn-server.js";

const CYCLES = Number(process.env.CRASH_CYCLES ?? 8);
const BATCH = 300;

/**
 * Kills the server with SIGKILL while it writes batches, restarts it on the same storage, and
 * checks every batch is there whole or not at all.
 */
async function crashCycles(env: Record<string, string>): Promise<{ whole: number; absent: number }> {
  let server: ServerProcess = await spawnServer(env);
  const setup = await call(server.url, "POST", "/api/v1/admin/bootstrap", {
    body: { email: "crash@example.com", password: "a long password", organization: "Crash" },
  });
  const token = setup.body.identity.credentials.token as string;
  const project = (await call(server.url, "POST", "/api/v1/projects", { token, body: { projectName: "Crash", slug: "crash-test" } })).body.project;
  let whole = 0;
  let absent = 0;
  try {
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const secrets = Array.from({ length: BATCH }, (_, i) => ({ secretKey: `C${cycle}_${i}`, secretValue: `value-${cycle}-${i}` }));
      const write = call(server.url, "POST", "/api/v4/secrets/batch", { token, body: { projectId: project.id, environment: "dev", secrets } }).catch(() => undefined);
      // kill at a different moment each cycle: before, during or after the transaction
      await new Promise((resolve) => setTimeout(resolve, 5 + cycle * 60));
      await server.kill();
      await write;
      server = await spawnServer(env);
      const listed = await call(server.url, "GET", `/api/v4/secrets?projectId=${project.id}&environment=dev&secretPath=/`, { token });
      expect(listed.status).toBe(200);
      const mine = (listed.body.secrets as { secretKey: string; secretValue: string }[]).filter((s) => s.secretKey.startsWith(`C${cycle}_`));
      expect([0, BATCH]).toContain(mine.length);
      if (mine.length === BATCH) {
        whole++;
        expect(mine.every((s) => s.secretValue === `value-${cycle}-${s.secretKey.split("_")[1]}`)).toBe(true);
      } else absent++;
    }
  } finally {
    await server.stop();
  }
  return { whole, absent };
}

describe("SIGKILL during batch writes", () => {
  const dirs: string[] = [];
  let pg: TestDatabase | undefined;
  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    if (pg?.available) await pg.drop();
  });

  it("leaves every batch whole or absent on SQLite, and the database intact", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-crash-"));
    dirs.push(dataDir);
    const { whole, absent } = await crashCycles({ DATA_DIR: dataDir });
    console.log(`crash safety (sqlite): ${CYCLES} kills, ${whole} batches whole, ${absent} absent`);
    const db = new Database(join(dataDir, "strongroom.db"));
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(db.pragma("foreign_key_check")).toEqual([]);
    } finally {
      db.close();
    }
  }, 240_000);

  it("leaves every batch whole or absent on PostgreSQL", async (ctx) => {
    pg = await withPostgres();
    if (!pg.available) return ctx.skip();
    const { whole, absent } = await crashCycles({ DATABASE_URL: pg.url, STRONGROOM_ROOT_KEY: generateRootKey() });
    console.log(`crash safety (postgres): ${CYCLES} kills, ${whole} batches whole, ${absent} absent`);
  }, 240_000);
});
