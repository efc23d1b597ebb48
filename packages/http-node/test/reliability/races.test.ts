import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerProxy, selfSignedPem } from "../../src/testing/agent-fixtures.js";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, startApi, type TestApi, type World } from "../../src/testing/harness.js";

const TRIALS = 20;

/**
 * Read-modify-writes under concurrency, over HTTP, with invariants checked after each trial:
 * concurrent role replacements leave exactly one of the role sets sent (an acknowledged downgrade
 * never leaves admin beside it), concurrent enrollment-token reissues leave one working token,
 * a one-time token or a single-use client secret is spent once, and positions stay distinct.
 */
describe.each(backends)("serialized read-modify-writes on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  maybe(`leaves exactly one role set after two concurrent replacements, in ${TRIALS} of ${TRIALS} trials`, async () => {
    const project = await createProject(api, world.admin.token);
    await createUser(api, world.admin.token, world.admin.orgId, "raced@acme.test");
    const added = await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, {
      token: world.admin.token,
      body: { usernames: ["raced@acme.test"], roleSlugs: ["viewer"] },
    });
    const membershipId = added.body.memberships[0].id as string;
    const upgrade = ["admin", "member"];
    const downgrade = ["no-access"];
    const replace = (roles: string[]) =>
      api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${membershipId}`, {
        token: world.admin.token,
        body: { roles: roles.map((role) => ({ role, isTemporary: false })) },
      });
    for (let trial = 0; trial < TRIALS; trial++) {
      const answers = await Promise.all([replace(upgrade), replace(downgrade)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const details = await api.request("POST", `/api/v1/workspace/${project.id}/memberships/details`, {
        token: world.admin.token,
        body: { username: "raced@acme.test" },
      });
      const held = (details.body.membership.roles as { role: string }[]).map((r) => r.role).sort();
      expect([upgrade.sort(), downgrade]).toContainEqual(held);
    }
  });

  maybe("leaves one working enrollment token after 10 concurrent reissues", async () => {
    const proxy = await registerProxy(api, world.admin.token, { name: "reissued-proxy" });
    const reissues = await Promise.all(
      Array.from({ length: 10 }, () => api.request("POST", `/api/v1/agent-vault/proxies/${proxy.id}/enrollment-token`, { token: world.admin.token })),
    );
    expect(reissues.map((r) => r.status)).toEqual(Array(10).fill(200));
    const ca = selfSignedPem(api.clock.now());
    const outcomes = [];
    // One at a time: a working token would enroll, and enrollment revokes nothing else here.
    for (const { body } of [...reissues, { body: { token: proxy.token } }]) {
      const res = await api.request("POST", "/api/v1/agent-vault/proxy/enroll", { body: { enrollmentToken: body.token, rootCaCertificate: ca } });
      outcomes.push(res.status);
    }
    expect(outcomes.filter((s) => s === 200)).toHaveLength(1);
    expect(outcomes.filter((s) => s === 401)).toHaveLength(10);
  });

  maybe("lets one of 10 concurrent enrollments spend a one-time enrollment token", async () => {
    const proxy = await registerProxy(api, world.admin.token, { name: "raced-proxy" });
    const ca = selfSignedPem(api.clock.now());
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => api.request("POST", "/api/v1/agent-vault/proxy/enroll", { body: { enrollmentToken: proxy.token, rootCaCertificate: ca } })),
    );
    expect(outcomes.map((o) => o.status).sort()).toEqual([200, ...Array(9).fill(401)]);
  });

  maybe("lets one of 10 concurrent logins spend a single-use client secret", async () => {
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "single-use-bot");
    const secret = await api.request("POST", `/api/v1/auth/universal-auth/identities/${bot.identityId}/client-secrets`, {
      token: world.admin.token,
      body: { numUsesLimit: 1 },
    });
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: bot.clientId, clientSecret: secret.body.clientSecret } }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(1);
    expect(outcomes.every((o) => o.status < 500)).toBe(true);
  });

  maybe("gives 8 concurrently created environments distinct positions", async () => {
    const project = await createProject(api, world.admin.token);
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.request("POST", `/api/v1/workspace/${project.id}/environments`, { token: world.admin.token, body: { name: `Env ${i}`, slug: `env-${i}` } }),
      ),
    );
    expect(created.map((c) => c.status)).toEqual(Array(8).fill(200));
    const positions = created.map((c) => c.body.environment.position as number).sort((a, b) => a - b);
    expect(positions).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
  });
});
