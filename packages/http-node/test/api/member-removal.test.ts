import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Removing a membership removes what it owned in the project (issue 17, "Members"): the principal's
 * personal overrides (with their history) and its access-bundle grants, with the agent sessions
 * opened on them — whichever way the membership goes: removed from the project, the user removed
 * from the organization, or the identity deleted. Added back, the principal starts clean: nothing
 * left behind speaks for it.
 */
describe.each(backends)("removing a member removes what its membership owned on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let admin: string;
  let available = true;
  let n = 0;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    admin = world.admin.token;
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()), 30_000);
  const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;
  async function ok(method: string, path: string, body?: unknown, token = admin) {
    const res = await api.request(method, path, { token, body });
    if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A project with a shared LOG_LEVEL, and an empty access bundle. */
  async function scene() {
    const project = await createProject(api, admin, { projectName: `Leavers ${++n}` });
    const where = { workspaceId: project.id, environment: "dev", secretPath: "/" };
    await ok("POST", "/api/v3/secrets/raw/LOG_LEVEL", { ...where, secretValue: "warn" });
    const bundle = (await ok("POST", "/api/v1/agent-vault/access-bundles", { projectId: project.id, name: `bundle-${n}` })).bundle;
    /** The principal's personal override, and a grant of the bundle. */
    const own = async (token: string, grant: { type: string; id: string }) => {
      await ok("POST", "/api/v3/secrets/raw/LOG_LEVEL", { ...where, secretValue: "debug", type: "personal" }, token);
      await ok("PATCH", `/api/v1/agent-vault/access-bundles/${bundle.id}`, { grants: [grant] });
      expect(await seen(token)).toEqual([["shared", "warn"], ["personal", "debug"]]);
    };
    /** LOG_LEVEL as the principal lists it: [type, value] of each item. */
    const seen = async (token: string) =>
      (await ok("GET", `/api/v3/secrets/raw${q(where)}`, undefined, token)).secrets
        .filter((s: { secretKey: string }) => s.secretKey === "LOG_LEVEL")
        .map((s: { type: string; secretValue: string }) => [s.type, s.secretValue]);
    const grants = async () => (await ok("GET", `/api/v1/agent-vault/access-bundles/${bundle.id}`)).bundle.grants;
    /** Personal rows (and their versions) stored for the principal in the project. */
    const storedPersonal = async (ownerId: string) => {
      const tables = api.strongroom.context.storage.tables;
      return (await tables.secrets.find({ projectId: project.id, ownerId })).length + (await tables.secretVersions.find({ projectId: project.id, ownerId })).length;
    };
    return { project, own, seen, grants, storedPersonal };
  }

  maybe("a user removed from the project and added back has no personal override and no bundle grant", async () => {
    const { project, own, seen, grants, storedPersonal } = await scene();
    const user = await createUser(api, admin, world.admin.orgId, `leaver-${n}@acme.test`);
    const add = async () => (await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [user.email], roleSlugs: ["member"] })).memberships[0].id;
    const membershipId = await add();
    await own(user.token, { type: "user", id: user.userId });
    // A second version of the override, so its history is there to be removed too.
    await ok("PATCH", "/api/v3/secrets/raw/LOG_LEVEL", { workspaceId: project.id, environment: "dev", secretValue: "trace", type: "personal" }, user.token);
    await ok("DELETE", `/api/v1/projects/${project.id}/memberships/${membershipId}`);
    expect(await grants()).toEqual([]);
    expect(await storedPersonal(user.userId)).toBe(0);
    await add();
    expect(await seen(user.token)).toEqual([["shared", "warn"]]);
  });

  maybe("a user removed from the organization loses the project's personal overrides and bundle grants", async () => {
    const { project, own, grants, storedPersonal } = await scene();
    const email = `gone-${n}@acme.test`;
    const user = await createUser(api, admin, world.admin.orgId, email);
    await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [email], roleSlugs: ["member"] });
    await own(user.token, { type: "user", id: user.userId });
    const members = await ok("GET", `/api/v2/organizations/${world.admin.orgId}/memberships`);
    const membership = members.users.find((m: { user: { email: string } }) => m.user.email === email);
    await ok("DELETE", `/api/v2/organizations/${world.admin.orgId}/memberships/${membership.id}`);
    expect(await grants()).toEqual([]);
    expect(await storedPersonal(user.userId)).toBe(0);
  });

  maybe("an identity removed from the project and added back has no personal override and no bundle grant", async () => {
    const { project, own, seen, grants, storedPersonal } = await scene();
    const bot = await createIdentity(api, admin, world.admin.orgId, `leaver-bot-${n}`, "no-access");
    const add = () => ok("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, { role: "member" });
    await add();
    await own(bot.token, { type: "identity", id: bot.identityId });
    await ok("DELETE", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`);
    expect(await grants()).toEqual([]);
    expect(await storedPersonal(bot.identityId)).toBe(0);
    await add();
    expect(await seen(bot.token)).toEqual([["shared", "warn"]]);
  });

  maybe("a deleted identity leaves no personal override or bundle grant behind", async () => {
    const { project, own, grants, storedPersonal } = await scene();
    const bot = await createIdentity(api, admin, world.admin.orgId, `deleted-bot-${n}`, "no-access");
    await ok("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, { role: "member" });
    await own(bot.token, { type: "identity", id: bot.identityId });
    await ok("DELETE", `/api/v1/identities/${bot.identityId}`);
    expect(await grants()).toEqual([]);
    expect(await storedPersonal(bot.identityId)).toBe(0);
  });

  maybe("a refused removal removes nothing", async () => {
    const { project, own, seen, grants, storedPersonal } = await scene();
    const user = await createUser(api, admin, world.admin.orgId, `stayer-${n}@acme.test`);
    const peer = await createUser(api, admin, world.admin.orgId, `peer-${n}@acme.test`);
    const added = await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [user.email, peer.email], roleSlugs: ["member"] });
    const membershipId = added.memberships.find((m: { userId: string }) => m.userId === user.userId).id;
    await own(user.token, { type: "user", id: user.userId });
    // A member may not remove another member.
    expect((await api.request("DELETE", `/api/v1/projects/${project.id}/memberships/${membershipId}`, { token: peer.token })).status).toBe(403);
    expect(await grants()).toEqual([{ type: "user", id: user.userId }]);
    expect(await storedPersonal(user.userId)).toBeGreaterThan(0);
    expect(await seen(user.token)).toEqual([["shared", "warn"], ["personal", "debug"]]);
  });
});
