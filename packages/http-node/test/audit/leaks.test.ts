import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { anonymous, type AuditEntry, type Strongroom } from "@strongroom/core";
import { describe, expect, it } from "vitest";
import { backendAvailable, backends } from "../../src/testing/harness.js";
import { auditBackend, auditScene, type AuditBackend } from "./fixture.js";

const VALUE = "Audit-Value-Marker-5c2e";
const PASSWORD = "Audit-Password-Marker-5c2e";
const SECRET_NAME = "AUDITED_NAME_5C2E";

/**
 * Audit entries name what was touched and by whom, never a secret value, token, password or
 * credential: not in answers, not in what sinks receive, not in the database. Secret names appear
 * in entries (that is their point) but are sealed at rest.
 */
async function exercise(sr: Strongroom, scene: Awaited<ReturnType<typeof auditScene>>) {
  const { admin, where, orgId } = scene;
  const sunk: AuditEntry[] = [];
  sr.audit.addSink({ name: "collector", write: async (entries) => void sunk.push(...entries), lag: () => ({ pending: 0, oldestPendingAt: null, dropped: 0 }) });
  await sr.organizations.createUser(admin, { orgId, email: "dev@acme.test", password: PASSWORD, role: "member" } as never);
  const login = await sr.auth.login({ ...anonymous, request: { ip: "198.51.100.4" } }, { email: "dev@acme.test", password: PASSWORD });
  await sr.auth.login({ ...anonymous, request: { ip: "198.51.100.4" } }, { email: "dev@acme.test", password: `${PASSWORD}-wrong` }).catch(() => {});
  const { identity } = await sr.identities.create(admin, { name: "bot", organizationId: orgId, role: "member" } as never);
  const ua = await sr.identities.attachUniversalAuth(admin, { identityId: identity.id } as never);
  const cs = await sr.identities.createClientSecret(admin, { identityId: identity.id } as never);
  const uaLogin = await sr.auth.universalAuthLogin(anonymous, { clientId: ua.identityUniversalAuth.clientId, clientSecret: cs.clientSecret });
  await sr.auth.universalAuthLogin(anonymous, { clientId: ua.identityUniversalAuth.clientId, clientSecret: `${VALUE}-wrong` }).catch(() => {});
  await sr.secrets.create(admin, { ...where, secretName: SECRET_NAME, secretValue: VALUE, secretComment: `comment ${VALUE}` });
  await sr.secrets.update(admin, { ...where, secretName: SECRET_NAME, secretValue: `${VALUE}-2` });
  await sr.secrets.updateMany(admin, { ...where, mode: "upsert", secrets: [{ secretKey: `${SECRET_NAME}_B`, secretValue: `${VALUE}-batch` }] });
  await sr.secrets.get(admin, { ...where, secretName: SECRET_NAME });
  await sr.secrets.list(admin, where);
  await sr.auth.revokeToken(anonymous, { accessToken: uaLogin.accessToken } as never).catch(() => {});
  await sr.audit.flush();
  const secrets = [VALUE, PASSWORD, login.accessToken, uaLogin.accessToken, cs.clientSecret];
  return { sunk, secrets };
}

for (const backend of backends) {
  describe(`audit leaks on ${backend}`, () => {
    it("never records a value, token, password or client secret", async (ctx) => {
      if (!(await backendAvailable(backend))) return ctx.skip();
      const db: AuditBackend = await auditBackend(backend);
      const scene = await auditScene(await db.open());
      try {
        const { sunk, secrets } = await exercise(scene.sr, scene);
        const { auditLogs } = await scene.sr.audit.query(scene.admin, { limit: 1000 });
        const answered = JSON.stringify(auditLogs);
        const streamed = JSON.stringify(sunk);
        expect(auditLogs.map((e) => e.event.type)).toEqual(expect.arrayContaining(["user-login", "login-identity-universal-auth", "create-secret", "update-secrets", "get-secret"]));
        expect(answered).toContain(SECRET_NAME);
        for (const secret of secrets) {
          expect(answered.includes(secret), `answer holds ${secret.slice(0, 12)}…`).toBe(false);
          expect(streamed.includes(secret), `sink got ${secret.slice(0, 12)}…`).toBe(false);
        }
        expect(sunk.map((e) => e.event.type)).toEqual(expect.arrayContaining(["create-secret", "get-secrets", "login-identity-universal-auth"]));
        // At rest: no secret and no secret name in any column of the audit tables.
        const rows = [
          ...(await db.sql(`select * from audit_entries`)),
          ...(await db.sql(`select * from audit_segments`)),
          ...(await db.sql(`select * from audit_checkpoints`)),
          ...(await db.sql(`select * from audit_chain_heads`)),
        ];
        const stored = JSON.stringify(rows);
        expect(rows.length).toBeGreaterThan(10);
        for (const needle of [...secrets, SECRET_NAME]) expect(stored.includes(needle), `stored ${needle.slice(0, 12)}…`).toBe(false);
        if (db.dir) {
          await scene.sr.close();
          const bytes = Buffer.concat(readdirSync(db.dir).map((name) => readFileSync(join(db.dir!, name))));
          for (const needle of [...secrets, SECRET_NAME]) expect(bytes.includes(needle), `file holds ${needle.slice(0, 12)}…`).toBe(false);
        }
      } finally {
        await scene.sr.close();
        await db.close();
      }
    });
  });
}
