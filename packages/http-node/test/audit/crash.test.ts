import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyChain } from "@strongroom/core/maintenance";
import { afterAll, describe, expect, it } from "vitest";
import { call, spawnServer } from "../helpers/spawn-server.js";

/**
 * A server killed with SIGKILL loses no audit entry of a change it acknowledged: the entry was
 * committed with the change. After a restart every acknowledged change is on record, the chain
 * verifies, and the log goes on from its head.
 */
describe("audit across SIGKILL", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the entry of every acknowledged change on SQLite", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-audit-crash-"));
    dirs.push(dataDir);
    let server = await spawnServer({ DATA_DIR: dataDir });
    const setup = await call(server.url, "POST", "/api/v1/admin/bootstrap", { body: { email: "crash@example.com", password: "a long password", organization: "Crash" } });
    const token = setup.body.identity.credentials.token as string;
    const project = (await call(server.url, "POST", "/api/v1/projects", { token, body: { projectName: "Crash" } })).body.project;
    const acknowledged: string[] = [];
    const create = (name: string) =>
      call(server.url, "POST", `/api/v4/secrets/${name}`, { token, body: { projectId: project.id, environment: "dev", secretPath: "/", secretValue: "v" } }).then(
        (res) => {
          if (res.status === 200) acknowledged.push(name);
        },
        () => undefined,
      );
    for (let i = 0; i < 20; i++) await create(`SEQ_${i}`);
    // More in flight when the process dies.
    const inFlight = Array.from({ length: 20 }, (_, i) => create(`FLY_${i}`));
    await new Promise((resolve) => setTimeout(resolve, 15));
    await server.kill();
    await Promise.all(inFlight);

    server = await spawnServer({ DATA_DIR: dataDir });
    try {
      const logs = await call(server.url, "GET", `/api/v1/organization/audit-logs?projectId=${project.id}&eventType=create-secret&limit=1000`, { token });
      expect(logs.status).toBe(200);
      const recorded = new Set((logs.body.auditLogs as { outcome: string; event: { metadata: { secretName?: string } } }[]).filter((e) => e.outcome === "success").map((e) => e.event.metadata.secretName));
      expect(acknowledged.length).toBeGreaterThanOrEqual(20);
      expect(acknowledged.filter((name) => !recorded.has(name))).toEqual([]);
      const chain = `project:${project.id}`;
      const head = await call(server.url, "GET", `/api/v1/organization/audit-logs/head?chain=${encodeURIComponent(chain)}`, { token });
      expect(head.status).toBe(200);
      // Verified as anyone holding the API's answers would: recompute every hash up to the head.
      const all = await call(server.url, "GET", `/api/v1/organization/audit-logs?projectId=${project.id}&limit=1000`, { token });
      // (Reading the log is recorded too: entries past the head fetched above are left out.)
      const entries = [...all.body.auditLogs].filter((e: { seq: number }) => e.seq <= head.body.seq).sort((a: { seq: number }, b: { seq: number }) => a.seq - b.seq);
      expect(verifyChain(chain, entries, { head: { seq: head.body.seq, hash: head.body.hash }, checkpoints: head.body.checkpoint ? [head.body.checkpoint] : [], publicKeySpki: head.body.publicKey.spki })).toMatchObject({ ok: true });
      // The log continues from the head it left: a new change lands at the next seq.
      await create("AFTER");
      const after = await call(server.url, "GET", `/api/v1/organization/audit-logs/head?chain=${encodeURIComponent(chain)}`, { token });
      expect(after.body.seq).toBeGreaterThan(head.body.seq);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
