import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEventStream } from "./events-client.js";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Caller-chosen globs (a role's `$glob`, a privilege's, an event subscription's secretPath) are
 * matched in linear time: extglobs are refused with 422 and change nothing, and a pattern built
 * to make a backtracking matcher explode is accepted and simply answers.
 */
const HOSTILE = "/*a*a*a*a*a*a*ac";

describe.each(backends)("caller-chosen globs on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let projectId: string;
  let available = true;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    projectId = (await createProject(api, world.admin.token, { projectName: "Globs" })).id;
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  const createRole = (slug: string, permissions: unknown[]) =>
    api.request("POST", `/api/v1/projects/${projectId}/roles`, { token: world.admin.token, body: { slug, name: slug, permissions } });

  maybe("refuses extglobs, regex groups and negation in a role's $glob (422), creating nothing", async () => {
    for (const [i, pattern] of ["/apps/@(a|b)", "/apps/!(x)", "/apps/+(a)", "/apps/*(a)", "/apps/?(a)", "/apps/(a|b)", "!/apps/**"].entries()) {
      const res = await createRole(`extglob-${i}`, [{ subject: "secrets", action: "read", conditions: { secretPath: { $glob: pattern } } }]);
      const body = expectError(res, 422);
      expect(JSON.stringify(body)).toMatch(/extglobs|negated/);
    }
    const roles = await api.request("GET", `/api/v1/projects/${projectId}/roles`, { token: world.admin.token });
    expect(JSON.stringify(roles.body)).not.toContain("extglob-");
  });

  maybe("refuses an extglob in an identity's additional privilege (422)", async () => {
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "glob-privileged");
    const added = await api.request("POST", `/api/v2/workspace/${projectId}/identity-memberships/${bot.identityId}`, {
      token: world.admin.token,
      body: { roles: [{ role: "viewer", isTemporary: false }] },
    });
    expect(added.status).toBe(200);
    const res = await api.request("POST", "/api/v2/identity-project-additional-privilege", {
      token: world.admin.token,
      body: { identityId: bot.identityId, projectId, slug: "extglob", permissions: [{ subject: "secrets", action: ["read"], conditions: { secretName: { $glob: "@(DB|API)_*" } } }] },
    });
    expect(JSON.stringify(expectError(res, 422))).toContain("extglobs");
    const list = await api.request("GET", `/api/v2/identity-project-additional-privilege?identityId=${bot.identityId}&projectId=${projectId}`, { token: world.admin.token });
    expect(JSON.stringify(list.body)).not.toContain("extglob");
  });

  maybe("refuses an extglob as an event subscription's secretPath (422)", async () => {
    const stream = await openEventStream(api.url, world.admin.token, {
      projectId,
      register: [{ event: "secret:create", conditions: { secretPath: "/apps/@(api|web)" } }],
    });
    expect(stream.status).toBe(422);
    expect(JSON.stringify(stream.body)).toContain("extglobs");
    stream.close();
  });

  maybe("accepts the backtracking bomb as a deny rule and a subscription, with picomatch's meaning", async () => {
    const matching = `${"a".repeat(40)}c`;
    const missing = `${"a".repeat(60)}`;
    for (const name of [matching, missing]) {
      const folder = await api.request("POST", "/api/v1/folders", { token: world.admin.token, body: { projectId, environment: "dev", path: "/", name } });
      expect(folder.status).toBe(200);
      const secret = await api.request("POST", `/api/v4/secrets/KEY`, {
        token: world.admin.token,
        body: { projectId, environment: "dev", secretPath: `/${name}`, secretValue: "v" },
      });
      expect(secret.status).toBe(200);
    }
    const role = await createRole("bomb-deny", [
      { subject: "secrets", action: ["read"] },
      { subject: "secrets", action: ["read"], inverted: true, conditions: { secretPath: { $glob: HOSTILE } } },
    ]);
    expect(role.status).toBe(200);
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "glob-reader");
    const added = await api.request("POST", `/api/v2/workspace/${projectId}/identity-memberships/${bot.identityId}`, {
      token: world.admin.token,
      body: { roles: [{ role: "bomb-deny", isTemporary: false }] },
    });
    expect(added.status).toBe(200);
    const read = (name: string) =>
      api.request("GET", `/api/v4/secrets/KEY?projectId=${projectId}&environment=dev&secretPath=/${name}`, { token: bot.token });
    expectError(await read(matching), 403);
    expect((await read(missing)).status).toBe(200);

    const stream = await openEventStream(api.url, world.admin.token, { projectId, register: [{ event: "secret:create", conditions: { secretPath: HOSTILE } }] });
    expect(stream.status).toBe(200);
    for (const name of [missing, matching]) {
      await api.request("POST", `/api/v4/secrets/NEW`, { token: world.admin.token, body: { projectId, environment: "dev", secretPath: `/${name}`, secretValue: "v" } });
    }
    const frame = await stream.next();
    expect(JSON.parse(frame.data).data.payload).toEqual([{ environment: "dev", secretPath: `/${matching}`, secretKey: "NEW" }]);
    stream.close();
    await stream.ended;
  });
});
