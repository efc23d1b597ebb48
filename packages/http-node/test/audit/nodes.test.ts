import { describe, expect, it } from "vitest";
import { backendAvailable } from "../../src/testing/harness.js";
import { startDeployment } from "../api/nodes.js";

/**
 * Two nodes on one PostgreSQL database append to the same chains at the same time: appends are
 * serialized on the chain head, so each chain stays one line — every request recorded once, seq
 * without gaps or forks — and verifies from either node, as does a signed checkpoint.
 */
describe("audit across two nodes on PostgreSQL", () => {
  it("keeps one verifiable chain per project while both nodes write and read", async (ctx) => {
    if (!(await backendAvailable("postgres"))) return ctx.skip();
    const deployment = await startDeployment("postgres", 2);
    try {
      const [a, b] = deployment.nodes;
      const boot = await a.request("POST", "/api/v1/admin/bootstrap", { body: { email: "owner@acme.test", password: "correct horse battery", organization: "Acme" } });
      const token = boot.body.identity.credentials.token as string;
      const project = (await b.request("POST", "/api/v1/projects", { token, body: { projectName: "Shared" } })).body.project;
      const base = `/api/v4/secrets`;
      const writes = (node: typeof a, prefix: string) =>
        Array.from({ length: 15 }, (_, i) =>
          node.request("POST", `${base}/${prefix}_${i}`, { token, body: { projectId: project.id, environment: "dev", secretPath: "/", secretValue: `v${i}` } }),
        );
      const reads = (node: typeof a) =>
        Array.from({ length: 15 }, () => node.request("GET", `${base}?projectId=${project.id}&environment=dev&secretPath=/`, { token }));
      const answers = await Promise.all([...writes(a, "A"), ...writes(b, "B"), ...reads(a), ...reads(b)]);
      expect(answers.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
      await Promise.all([a.strongroom.audit.flush(), b.strongroom.audit.flush()]);

      const chain = `project:${project.id}`;
      const head = await a.strongroom.audit.headOf(chain);
      expect(head.seq).toBe(60);
      for (const node of [a, b]) expect(await node.strongroom.audit.verify({ chain })).toMatchObject({ ok: true, checked: 60 });
      expect(await b.strongroom.audit.checkpoint()).toBeGreaterThan(0);
      const signed = await a.strongroom.audit.headOf(chain);
      expect(signed.checkpoint).toMatchObject({ seq: 60, hash: head.hash });
      expect(await a.strongroom.audit.verify({ chain, head: { seq: head.seq, hash: head.hash } })).toMatchObject({ ok: true });

      // The head route serves the same head and the public key to an organization admin.
      const served = await b.request("GET", `/api/v1/organization/audit-logs/head?chain=${encodeURIComponent(chain)}`, { token });
      expect(served.status).toBe(200);
      expect(served.body).toMatchObject({ chain, seq: 60, hash: head.hash, publicKey: { keyId: expect.any(String), spki: expect.any(String) } });
    } finally {
      await deployment.close();
    }
  });
});
