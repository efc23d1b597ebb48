import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateRootKey } from "@strongroom/core/maintenance";
import { withPostgres } from "@strongroom/storage-postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, setUpInstance, type Instance } from "./helpers/api.js";
import { requireBuilt, runCli, startServer, tempDir, type ServerProcess } from "./helpers/cli.js";

/**
 * `strongroom backup` of a SQLite server under write load, then `strongroom restore` into a new
 * data directory: the restored instance holds every write acknowledged before the backup began.
 */
describe("strongroom backup and restore (SQLite)", { timeout: 240_000 }, () => {
  let server: ServerProcess;
  let instance: Instance;
  const backupFile = join(tempDir("backups"), "strongroom.backup");
  /** Secret name → value, for every write the server acknowledged before the backup began. */
  const acknowledgedBefore = new Map<string, string>();
  let backupOutput = "";

  beforeAll(async () => {
    requireBuilt();
    server = await startServer();
    instance = await setUpInstance(server.url);
    // Bulk, so the backup copies enough pages to be under way while writes continue.
    for (let batch = 0; batch < 5; batch++) {
      const secrets = Array.from({ length: 900 }, (_, i) => ({ secretKey: `BULK_${batch}_${i}`, secretValue: `${batch}-${i}-${"v".repeat(900)}` }));
      await api(server.url, "POST", "/api/v4/secrets/batch", { token: instance.admin, body: { projectId: instance.projectId, environment: "dev", secrets } });
      for (const s of secrets) acknowledgedBefore.set(s.secretKey, s.secretValue);
    }

    let writing = true;
    let n = 0;
    const writer = async () => {
      while (writing) {
        const name = `LIVE_${n++}`;
        const value = `value-${n}`;
        await api(server.url, "POST", `/api/v3/secrets/raw/${name}`, {
          token: instance.admin,
          body: { workspaceId: instance.projectId, environment: "dev", secretValue: value },
        });
        if (!backupStarted) acknowledgedBefore.set(name, value);
      }
    };
    let backupStarted = false;
    const writers = [writer(), writer(), writer()];
    await new Promise((resolve) => setTimeout(resolve, 500));
    backupStarted = true;
    const backup = await runCli(["backup", backupFile, "--data-dir", server.dataDir]);
    writing = false;
    await Promise.all(writers);
    backupOutput = backup.stdout + backup.stderr;
    expect(backup.code, backupOutput).toBe(0);
    expect(n).toBeGreaterThan(3);
  }, 240_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("verifies the backup and keeps it private", () => {
    expect(backupOutput).toContain("integrity check ok, row counts match");
    expect(backupOutput).toMatch(/fingerprint [0-9a-f]{4}(:[0-9a-f]{4}){7}/);
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);
    expect(existsSync(`${backupFile}.partial`)).toBe(false);
  });

  it("refuses to overwrite an existing file", async () => {
    const again = await runCli(["backup", backupFile, "--data-dir", server.dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
  });

  it("restores into a new data directory with every write acknowledged before the backup began", async () => {
    const dataDir = tempDir("restored");
    copyFileSync(join(server.dataDir, "root.key"), join(dataDir, "root.key"));
    const restore = await runCli(["restore", backupFile, "--data-dir", dataDir]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toContain("integrity check ok");
    expect(statSync(join(dataDir, "strongroom.db")).mode & 0o777).toBe(0o600);

    const restored = await startServer({ dataDir });
    try {
      const list = await api(restored.url, "GET", `/api/v3/secrets/raw?workspaceId=${instance.projectId}&environment=dev`, { token: instance.admin });
      const values = new Map<string, string>(list.secrets.map((s: { secretKey: string; secretValue: string }) => [s.secretKey, s.secretValue]));
      const missing = [...acknowledgedBefore].filter(([name, value]) => values.get(name) !== value).map(([name]) => name);
      expect(missing).toEqual([]);
      expect(values.size).toBeGreaterThanOrEqual(acknowledgedBefore.size);

      // While a server has the database open, restore refuses and changes nothing.
      const busy = await runCli(["restore", backupFile, "--data-dir", dataDir]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/in use by another process/);
    } finally {
      await restored.stop();
    }

    // Stopped, a second restore keeps the database it replaces beside it.
    const second = await runCli(["restore", backupFile, "--data-dir", dataDir]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/kept as .*strongroom\.db\.before-restore-/);
  });

  it("refuses a backup the configured root key cannot open", async () => {
    const result = await runCli(["restore", backupFile, "--data-dir", tempDir("restored")], { env: { STRONGROOM_ROOT_KEY: generateRootKey() } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/different root key/);
    const noKey = await runCli(["restore", backupFile, "--data-dir", tempDir("restored")]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/no root key/);
  });

  it("refuses a damaged backup", async () => {
    const damaged = join(tempDir("damaged"), "damaged.backup");
    const bytes = readFileSync(backupFile);
    // Scribble over the middle of the file: pages of the secrets table.
    bytes.fill(0x5a, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 8192);
    writeFileSync(damaged, bytes);
    const dataDir = tempDir("restored");
    copyFileSync(join(server.dataDir, "root.key"), join(dataDir, "root.key"));
    const result = await runCli(["restore", damaged, "--data-dir", dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/integrity check|malformed/);
    expect(existsSync(join(dataDir, "strongroom.db"))).toBe(false);
  });
});

describe("strongroom backup and restore (PostgreSQL)", { timeout: 120_000 }, () => {
  it("print the pg_dump and pg_restore recipes after checking the root key", async () => {
    const db = await withPostgres();
    if (!db.available) return;
    const rootKey = generateRootKey();
    const server = await startServer({ env: { DATABASE_URL: db.url, STRONGROOM_ROOT_KEY: rootKey } });
    try {
      const env = { DATABASE_URL: db.url, STRONGROOM_ROOT_KEY: rootKey };
      const backup = await runCli(["backup", "/tmp/x.dump"], { env });
      expect(backup.code, backup.stderr).toBe(0);
      expect(backup.stdout).toContain('pg_dump --format=custom --no-owner --file=/tmp/x.dump "$DATABASE_URL"');
      expect(backup.stdout).toMatch(/fingerprint [0-9a-f:]{39}/);
      expect(backup.stdout).not.toContain(rootKey);

      const wrongKey = await runCli(["backup", "/tmp/x.dump"], { env: { ...env, STRONGROOM_ROOT_KEY: generateRootKey() } });
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stderr).toMatch(/different root key/);

      // Restore only prints the recipe for PostgreSQL: any existing file stands in for a dump.
      const dump = join(tempDir("dump"), "x.dump");
      writeFileSync(dump, "");
      const restore = await runCli(["restore", dump], { env });
      expect(restore.code).toBe(0);
      expect(restore.stdout).toContain('pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL"');
    } finally {
      await server.stop();
      await db.drop();
    }
  });
});
