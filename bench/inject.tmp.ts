import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import inject from "light-my-request";
import { createStrongroom, generateRootKey, anonymous } from "@strongroom/core";
import { createHandler, bufferedLogger } from "@strongroom/http-node";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { fastifyPeer } from "./peers/fastify-read.js";
import { sqliteStore } from "./peers/secret-store.js";
const dir = mkdtempSync(join(tmpdir(), "inj-"));
const sr = await createStrongroom({ storage: await createSqliteStorage({ filename: join(dir, "s.db") }), rootKey: generateRootKey() });
const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
const admin = await sr.authenticate(boot.identity.credentials.token);
const { project } = await sr.projects.create(admin, { projectName: "Bench" });
const { identity } = await sr.identities.create(admin, { name: "reader", organizationId: boot.organization.id, role: "member" });
const { identityUniversalAuth } = await sr.identities.attachUniversalAuth(admin, { identityId: identity.id });
const { clientSecret } = await sr.identities.createClientSecret(admin, { identityId: identity.id });
await sr.memberships.addIdentity(admin, { projectId: project.id, identityId: identity.id, role: "member" });
const { accessToken } = await sr.auth.universalAuthLogin(anonymous, { clientId: identityUniversalAuth.clientId, clientSecret });
const value = (i: number) => `value-${i}-${"x".repeat(40)}`;
await sr.secrets.createMany(admin, { projectId: project.id, environment: "prod", secretPath: "/", secrets: Array.from({ length: 200 }, (_, i) => ({ secretKey: `SECRET_${i}`, secretValue: value(i) })) });
const handler = createHandler(sr, { logger: process.env.LOG === "0" ? () => undefined : bufferedLogger(join(dir, "log")) });
const url = `/api/v4/secrets/SECRET_42?projectId=${project.id}&environment=prod&secretPath=%2F`;
const peer = sqliteStore(join(dir, "p.db"), 200, value);
const { app } = await fastifyPeer(peer.store, peer.seed, process.env.LOG === "0" ? null : join(dir, "f.log"));
const purl = `/api/v4/secrets/SECRET_42?projectId=${peer.seed.projectId}&environment=prod&secretPath=%2F`;
async function time(name: string, fn: () => Promise<unknown>, n: number) {
  const t0 = performance.now(); const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const c = process.cpuUsage(c0);
  console.log(name, ((performance.now() - t0) * 1000 / n).toFixed(1), "µs wall", ((c.user + c.system) / n).toFixed(1), "µs cpu");
}
const ours = async () => { const r = await inject(handler as any, { url, headers: { authorization: `Bearer ${accessToken}` } }); if (r.statusCode !== 200) throw new Error(r.body); };
const fast = async () => { const r = await app.inject({ url: purl, headers: { authorization: `Bearer ${peer.seed.token}` } }); if (r.statusCode !== 200) throw new Error(r.body); };
const N = +(process.env.N ?? 5000);
for (let round = 0; round < 3; round++) { await time("ours", ours, N); if (!process.env.ONLY_OURS) await time("fastify", fast, N); }
await app.close(); await sr.close();
