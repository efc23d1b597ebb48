import { join } from "node:path";
import { generateRootKey } from "@strongroom/core/maintenance";
import { readRow } from "@strongroom/storage-sqlite";
import { withPostgres } from "@strongroom/storage-postgres/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { api, setUpInstance, type Instance } from "./helpers/api.js";
import { requireBuilt, runCli, startServer, type ServerProcess } from "./helpers/cli.js";

/**
 * `strongroom rotate-data-keys` against a running server (real SQLite and PostgreSQL), with
 * readers and a writer hammering the project meanwhile: no read fails or sees a wrong value, no
 * acknowledged write is lost, and afterwards nothing refers to the old key.
 */
interface Load {
  reads: number;
  failures: string[];
  /** Name → value of every write the server acknowledged. */
  written: Map<string, string>;
}

async function seed(url: string, instance: Instance, load: Load): Promise<void> {
  for (let batch = 0; batch < 3; batch++) {
    const secrets = Array.from({ length: 200 }, (_, i) => ({ secretKey: `SEED_${batch}_${i}`, secretValue: `seed-${batch}-${i}` }));
    await api(url, "POST", "/api/v4/secrets/batch", { token: instance.admin, body: { projectId: instance.projectId, environment: "dev", secrets } });
    for (const s of secrets) load.written.set(s.secretKey, s.secretValue);
  }
  // Some history: versions are sealed too.
  for (let i = 0; i < 20; i++) {
    const value = `updated-${i}`;
    await api(url, "PATCH", `/api/v3/secrets/raw/SEED_0_${i}`, { token: instance.admin, body: { workspaceId: instance.projectId, environment: "dev", secretValue: value } });
    load.written.set(`SEED_0_${i}`, value);
  }
}

/** Readers (whole list, and one name at a time) and one writer, until `stop` is called. */
function hammer(url: string, instance: Instance, load: Load) {
  let running = true;
  const query = `workspaceId=${instance.projectId}&environment=dev`;
  const reader = async () => {
    while (running) {
      try {
        const { secrets } = await api(url, "GET", `/api/v3/secrets/raw?${query}`, { token: instance.admin });
        const got = new Map((secrets as { secretKey: string; secretValue: string }[]).map((s) => [s.secretKey, s.secretValue]));
        for (const [name, value] of load.written) {
          // A write acknowledged after the list was read may be missing from it; a value never differs.
          if (got.has(name) && got.get(name) !== value && !name.startsWith("LIVE_")) load.failures.push(`list: ${name}=${got.get(name)}`);
        }
        const name = `SEED_1_${load.reads % 200}`;
        const { secret } = await api(url, "GET", `/api/v3/secrets/raw/${name}?${query}`, { token: instance.admin });
        if (secret.secretValue !== load.written.get(name)) load.failures.push(`get: ${name}=${secret.secretValue}`);
        load.reads++;
      } catch (thrown) {
        load.failures.push(String(thrown));
      }
    }
  };
  const writer = async () => {
    for (let n = 0; running; n++) {
      const name = `LIVE_${n}`;
      try {
        await api(url, "POST", `/api/v3/secrets/raw/${name}`, { token: instance.admin, body: { workspaceId: instance.projectId, environment: "dev", secretValue: `live-${n}` } });
        load.written.set(name, `live-${n}`);
      } catch (thrown) {
        load.failures.push(`write ${name}: ${String(thrown)}`);
      }
    }
  };
  const all = Promise.all([reader(), reader(), writer()]);
  return async () => {
    running = false;
    await all;
  };
}

async function everything(url: string, instance: Instance): Promise<Map<string, string>> {
  const { secrets } = await api(url, "GET", `/api/v3/secrets/raw?workspaceId=${instance.projectId}&environment=dev`, { token: instance.admin });
  return new Map((secrets as { secretKey: string; secretValue: string }[]).map((s) => [s.secretKey, s.secretValue]));
}

/** Runs the rotation under load and checks what every user would notice. */
async function rotateUnderLoad(server: ServerProcess, env: Record<string, string>, args: string[]) {
  const instance = await setUpInstance(server.url);
  const load: Load = { reads: 0, failures: [], written: new Map() };
  await seed(server.url, instance, load);
  const stop = hammer(server.url, instance, load);
  const rotation = await runCli(["rotate-data-keys", "--project", instance.projectId, "--batch-size", "100", ...args], { env });
  await stop();
  expect(rotation.code, rotation.stdout + rotation.stderr).toBe(0);
  expect(rotation.stdout).toMatch(/rewrapped \d+ secrets/);
  expect(load.failures, server.output().split("\n").filter((l) => /error|fail/i.test(l)).slice(0, 5).join("\n")).toEqual([]);
  expect(load.reads).toBeGreaterThan(10);
  expect(load.written.size).toBeGreaterThan(620);
  expect(Object.fromEntries(await everything(server.url, instance))).toEqual(Object.fromEntries(load.written));
  const [, fromKeyId, toKeyId] = /([0-9a-f-]{36}) -> ([0-9a-f-]{36})/.exec(rotation.stdout)!;
  // Versions were rewrapped too: the history of an updated secret still opens.
  const { secret } = await api(server.url, "GET", `/api/v3/secrets/raw/SEED_0_3?workspaceId=${instance.projectId}&environment=dev`, { token: instance.admin });
  const { secretVersions } = await api(server.url, "GET", `/api/v1/secret/${secret.id}/secret-versions`, { token: instance.admin });
  expect((secretVersions as { secretValue: string }[]).map((v) => v.secretValue)).toEqual(expect.arrayContaining(["seed-0-3", "updated-3"]));
  return { instance, load, fromKeyId, toKeyId, output: rotation.stdout };
}

describe("strongroom rotate-data-keys (SQLite)", { timeout: 240_000 }, () => {
  it("rewraps a project under load: nothing lost, nothing misread, the old key gone", async () => {
    requireBuilt();
    const server = await startServer();
    let result: Awaited<ReturnType<typeof rotateUnderLoad>>;
    try {
      result = await rotateUnderLoad(server, {}, ["--data-dir", server.dataDir]);
      const { instance, fromKeyId, toKeyId, output } = result;
      expect(output).toContain("the old key is deleted");
      const db = join(server.dataDir, "strongroom.db");
      expect(readRow(db, "kms_keys", fromKeyId)).toBeUndefined();
      expect(readRow(db, "projects", instance.projectId)?.kmsSecretManagerKeyId).toBe(toKeyId);
      expect(readRow(db, "data_key_rotations", instance.projectId)).toBeUndefined();
    } finally {
      await server.stop();
    }
    // A restarted server (nothing cached) reads every secret from the rows alone.
    const again = await startServer({ dataDir: server.dataDir });
    try {
      expect(Object.fromEntries(await everything(again.url, result.instance))).toEqual(Object.fromEntries(result.load.written));
    } finally {
      await again.stop();
    }
  });

  it("names the project by slug, and refuses an unknown one", async () => {
    requireBuilt();
    const server = await startServer();
    try {
      const instance = await setUpInstance(server.url);
      const { project } = await api(server.url, "POST", "/api/v1/projects", { token: instance.admin, body: { projectName: "By Slug" } });
      const bySlug = await runCli(["rotate-data-keys", "--project", project.slug, "--data-dir", server.dataDir]);
      expect(bySlug.code, bySlug.stderr).toBe(0);
      expect(bySlug.stdout).toContain(`rotated the data key of project ${project.id}`);
      const unknown = await runCli(["rotate-data-keys", "--project", "no-such-project", "--data-dir", server.dataDir]);
      expect(unknown.code).toBe(4);
      expect(unknown.stderr).toContain("no project with id or slug no-such-project");
    } finally {
      await server.stop();
    }
  });
});

describe("strongroom rotate-data-keys (PostgreSQL)", { timeout: 240_000 }, () => {
  it("rewraps a project under load: nothing lost, nothing misread, no row refers to the old key", async () => {
    requireBuilt();
    const db = await withPostgres();
    if (!db.available) return;
    const env = { DATABASE_URL: db.url, STRONGROOM_ROOT_KEY: generateRootKey() };
    const server = await startServer({ env });
    try {
      const { instance, fromKeyId, toKeyId } = await rotateUnderLoad(server, env, []);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const refs = await client.query(
          `select (select count(*) from kms_keys where id = $1)::int as keys, (select count(*) from projects where "kmsSecretManagerKeyId" = $1)::int as projects,
                  (select count(*) from data_key_rotations)::int as rotations, (select "kmsSecretManagerKeyId" from projects where id = $2) as current`,
          [fromKeyId, instance.projectId],
        );
        expect(refs.rows[0]).toEqual({ keys: 0, projects: 0, rotations: 0, current: toKeyId });
      } finally {
        await client.end();
      }
    } finally {
      await server.stop();
      await db.drop();
    }
  });
});
