import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateRootKey, rootKeyFingerprint, parseRootKey } from "@strongroom/core/maintenance";
import { withPostgres } from "@strongroom/storage-postgres/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { api, setUpInstance, type Instance } from "./helpers/api.js";
import { requireBuilt, runCli, startCli, startServer } from "./helpers/cli.js";

/**
 * `strongroom rotate-root-key` against real databases, servers as child processes: after the
 * rotation a server with the new key reads every secret, one with the old key refuses to start.
 */
const WRITTEN = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`ROTATED_${i}`, `value-${i}-${"x".repeat(i)}`]));

async function writeSecrets(url: string, instance: Instance): Promise<void> {
  const secrets = Object.entries(WRITTEN).map(([secretKey, secretValue]) => ({ secretKey, secretValue }));
  await api(url, "POST", "/api/v4/secrets/batch", { token: instance.admin, body: { projectId: instance.projectId, environment: "dev", secrets } });
  // A second project: its own data keys, rewrapped too.
  const { project } = await api(url, "POST", "/api/v1/projects", { token: instance.admin, body: { projectName: "Second" } });
  await api(url, "POST", "/api/v3/secrets/raw/OTHER", { token: instance.admin, body: { workspaceId: project.id, environment: "dev", secretValue: "second" } });
}

async function readSecrets(url: string, instance: Instance): Promise<Record<string, string>> {
  const { secrets } = await api(url, "GET", `/api/v3/secrets/raw?workspaceId=${instance.projectId}&environment=dev`, { token: instance.admin });
  return Object.fromEntries((secrets as { secretKey: string; secretValue: string }[]).map((s) => [s.secretKey, s.secretValue]));
}

/** `strongroom serve` with a key that no longer opens the database: it exits with the reason. */
async function refusedStart(dataDir: string, env: Record<string, string>): Promise<string> {
  const server = startCli(["serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir], { env });
  const { code } = await server.exited;
  expect(code).not.toBe(0);
  return server.stdout() + server.stderr();
}

describe("strongroom rotate-root-key (SQLite, key in <data-dir>/root.key)", { timeout: 240_000 }, () => {
  let dataDir: string;
  let instance: Instance;
  let oldKey: string;
  let rotation: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    requireBuilt();
    const server = await startServer();
    dataDir = server.dataDir;
    instance = await setUpInstance(server.url);
    await writeSecrets(server.url, instance);
    oldKey = readFileSync(join(dataDir, "root.key"), "utf8").trim();

    const refused = await runCli(["rotate-root-key", "--data-dir", dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("needs every server stopped");
    expect(readFileSync(join(dataDir, "root.key"), "utf8").trim()).toBe(oldKey);

    await server.stop();
    rotation = await runCli(["rotate-root-key", "--data-dir", dataDir]);
  });

  it("rewraps the data keys and installs the new key, keeping the old one aside (0600)", () => {
    expect(rotation.code, rotation.stderr).toBe(0);
    // One organization key and two per project (secrets, certificates), two projects.
    expect(rotation.stdout).toContain("rewrapped 5 in kms_keys under the new root key in one transaction");
    const newKey = readFileSync(join(dataDir, "root.key"), "utf8").trim();
    expect(newKey).not.toBe(oldKey);
    expect(rotation.stdout).toContain(`root key rotated: ${rootKeyFingerprint(parseRootKey(oldKey))} -> ${rootKeyFingerprint(parseRootKey(newKey))}`);
    expect(rotation.stdout).not.toContain(newKey);
    const kept = readdirSync(dataDir).filter((f) => f.startsWith("root.key.old-"));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(dataDir, kept[0]), "utf8").trim()).toBe(oldKey);
    for (const file of ["root.key", kept[0]]) expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir)).not.toContain("root.key.new");
  });

  it("a server with the new key reads every secret; one with the old key refuses to start", async () => {
    const server = await startServer({ dataDir });
    try {
      expect(await readSecrets(server.url, instance)).toEqual(WRITTEN);
    } finally {
      await server.stop();
    }
    const output = await refusedStart(dataDir, { STRONGROOM_ROOT_KEY: oldKey });
    expect(output).toContain(`root key (fingerprint ${rootKeyFingerprint(parseRootKey(oldKey))}) does not match`);
    expect(output).toContain("rotate-root-key");
  });

  it("finishes a rotation interrupted after its commit when run again", async () => {
    // As if the process died between the commit and installing the key: root.key still holds the
    // key the database no longer answers to, root.key.new the one it does.
    const current = readFileSync(join(dataDir, "root.key"), "utf8");
    const rotated = await runCli(["rotate-root-key", "--data-dir", dataDir]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newest = readFileSync(join(dataDir, "root.key"), "utf8");
    writeFileSync(join(dataDir, "root.key"), current, { mode: 0o600 });
    writeFileSync(join(dataDir, "root.key.new"), newest, { mode: 0o600 });

    const again = await runCli(["rotate-root-key", "--data-dir", dataDir]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toContain("rewrapped");
    expect(again.stdout).toContain("now holds the new key");
    expect(readFileSync(join(dataDir, "root.key"), "utf8")).toBe(newest);
    const server = await startServer({ dataDir });
    try {
      expect(await readSecrets(server.url, instance)).toEqual(WRITTEN);
    } finally {
      await server.stop();
    }
  });

  it("says what to do when the database answers to neither key", async () => {
    const lost = await runCli(["rotate-root-key", "--data-dir", dataDir], { env: { STRONGROOM_ROOT_KEY: generateRootKey() } });
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain("answers to neither the current root key from STRONGROOM_ROOT_KEY");
  });
});

describe("strongroom rotate-root-key (PostgreSQL, key in STRONGROOM_ROOT_KEY)", { timeout: 240_000 }, () => {
  it("rotates to a key named in STRONGROOM_NEW_ROOT_KEY: the new key reads every secret, the old one is refused", async () => {
    requireBuilt();
    const db = await withPostgres();
    if (!db.available) return;
    try {
      const oldKey = generateRootKey();
      const newKey = generateRootKey();
      const server = await startServer({ env: { DATABASE_URL: db.url, STRONGROOM_ROOT_KEY: oldKey } });
      const instance = await setUpInstance(server.url);
      await writeSecrets(server.url, instance);
      const env = { DATABASE_URL: db.url, STRONGROOM_ROOT_KEY: oldKey, STRONGROOM_NEW_ROOT_KEY: newKey };

      const refused = await runCli(["rotate-root-key", "--data-dir", server.dataDir], { env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/other sessions? (is|are) connected/);
      await server.stop();

      const rotation = await runCli(["rotate-root-key", "--data-dir", server.dataDir], { env });
      expect(rotation.code, rotation.stderr).toBe(0);
      expect(rotation.stdout).toContain("rewrapped 5 in kms_keys");
      expect(rotation.stdout).toContain("STRONGROOM_ROOT_KEY still holds the old key");
      expect(rotation.stdout).not.toContain(newKey);
      expect(readdirSync(server.dataDir)).not.toContain("root.key.new");

      const output = await refusedStart(server.dataDir, { DATABASE_URL: db.url, STRONGROOM_ROOT_KEY: oldKey });
      expect(output).toContain("does not match");

      const after = await startServer({ dataDir: server.dataDir, env: { DATABASE_URL: db.url, STRONGROOM_ROOT_KEY: newKey } });
      try {
        expect(await readSecrets(after.url, instance)).toEqual(WRITTEN);
      } finally {
        await after.stop();
      }
      // Run again with the same settings: the database already answers to the new key.
      const again = await runCli(["rotate-root-key", "--data-dir", server.dataDir], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).not.toContain("rewrapped");
    } finally {
      await db.drop();
    }
  });
});
