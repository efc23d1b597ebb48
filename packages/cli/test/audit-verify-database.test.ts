import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, setUpInstance, type Instance } from "./helpers/api.js";
import { requireBuilt, runCli, startServer, type ServerProcess } from "./helpers/cli.js";

/**
 * `strongroom audit verify --data-dir` against the database of a real `strongroom serve`: an
 * untouched log verifies while the server runs; an entry edited directly in SQLite is named and
 * the command exits 5; a wrong root key is refused.
 */
describe("strongroom audit verify (SQLite database)", { timeout: 240_000 }, () => {
  let server: ServerProcess;
  let instance: Instance;

  beforeAll(async () => {
    requireBuilt();
    server = await startServer();
    instance = await setUpInstance(server.url);
    for (let i = 0; i < 5; i++) {
      await api(server.url, "POST", `/api/v3/secrets/raw/KEY_${i}`, { token: instance.admin, body: { workspaceId: instance.projectId, environment: "dev", secretValue: `v${i}` } });
      await api(server.url, "GET", `/api/v3/secrets/raw/KEY_${i}?workspaceId=${instance.projectId}&environment=dev`, { token: instance.admin });
    }
    // Reads are written within the flush bound (100 ms); let it pass.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }, 240_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("verifies an untouched log beside the running server", async () => {
    const run = await runCli(["audit", "verify", "--data-dir", server.dataDir]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^ok {8}project:${instance.projectId}: \\d+ entries fit, head \\d+`, "m"));
    expect(run.stdout).toMatch(/^ok {8}org:/m);

    // The same chain as the API answers it, checked by the CLI itself against the served head.
    const api = await runCli(["audit", "verify", "--api", "--project", instance.projectId], { env: { STRONGROOM_URL: server.url, STRONGROOM_TOKEN: instance.admin } });
    expect(api.stderr).toBe("");
    expect(api.stdout).toMatch(new RegExp(`^ok {8}project:${instance.projectId}: \\d+ entries fit`, "m"));
    expect(api.code).toBe(0);
  });

  it("names an entry edited in the database and exits 5", async () => {
    const db = new Database(join(server.dataDir, "strongroom.db"));
    let id: string;
    let seq: number;
    try {
      // Reads are stored a flush at a time, in segments (an entry: [id, at, count, hash, ref × 13], or
      // without refs when they are the previous entry's): the third read's outcome made "denied".
      const segments = db.prepare(`select id, firstSeq, entries from audit_segments where chainId = ? order by firstSeq`).all(`project:${instance.projectId}`) as { id: string; firstSeq: number; entries: string }[];
      const reads = segments.flatMap((segment) => {
        const body = JSON.parse(segment.entries) as { d: string[]; e: unknown[][] };
        let refs: unknown[] = [];
        return body.e.flatMap((entry, i) => {
          if (entry.length > 4) refs = entry.slice(4);
          return body.d[refs[7] as number] === "get-secret" ? [{ segment, body, entry, refs, seq: segment.firstSeq + i }] : [];
        });
      });
      const { segment, body, entry, refs } = reads[2];
      body.d.push("denied");
      entry.splice(4, entry.length - 4, ...refs.slice(0, 8), body.d.length - 1, ...refs.slice(9));
      db.prepare(`update audit_segments set entries = ? where id = ?`).run(JSON.stringify(body), segment.id);
      id = entry[0] as string;
      seq = reads[2].seq;
    } finally {
      db.close();
    }
    const run = await runCli(["audit", "verify", "--data-dir", server.dataDir, "--project", instance.projectId]);
    expect(run.stdout).toContain(`TAMPERED  project:${instance.projectId}: entry ${seq} (${id}): its content no longer matches its hash`);
    expect(run.code).toBe(5);

    const json = await runCli(["audit", "verify", "--data-dir", server.dataDir, "--project", instance.projectId, "--json"]);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ ok: false, firstBad: { seq, id, reason: "hash-mismatch" } })]);
    expect(json.code).toBe(5);

    // Through the API: the edited entry is served as stored and its hash no longer fits.
    const api = await runCli(["audit", "verify", "--api", "--project", instance.projectId], { env: { STRONGROOM_URL: server.url, STRONGROOM_TOKEN: instance.admin } });
    expect(api.stdout).toContain(`TAMPERED  project:${instance.projectId}: entry ${seq} (${id})`);
    expect(api.code).toBe(5);
  });

  it("refuses a root key the database was not sealed with", async () => {
    const run = await runCli(["audit", "verify", "--data-dir", server.dataDir], { env: { STRONGROOM_ROOT_KEY: Buffer.alloc(32, 7).toString("base64") } });
    expect(run.stderr).toMatch(/sealed with a different root key/);
    expect(run.code).toBe(1);
  });
});
