import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/** Organization users and project memberships (users and machine identities), listed, read, changed and removed. */
describe.each(backends)("members API on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let rivalToken: string;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    const rival = await api.request("POST", "/api/v2/organizations", { token: world.admin.userToken, body: { name: "Rival" } });
    rivalToken = (await createUser(api, world.admin.userToken, rival.body.organization.id, "boss@rival.test", "admin")).token;
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));
  const admin = () => world.admin.token;
  const orgMembers = () => `/api/v2/organizations/${world.admin.orgId}/memberships`;
  const membershipOf = async (email: string) =>
    (await api.request("GET", orgMembers(), { token: admin() })).body.users.find((u: { user: { email: string } }) => u.user.email === email);

  maybe("lists an organization's users and changes their roles", async () => {
    const dev = await createUser(api, admin(), world.admin.orgId, "dev@acme.test");
    const listed = await api.request("GET", orgMembers(), { token: admin() });
    expect(listed.status).toBe(200);
    const emails = listed.body.users.map((u: { user: { email: string } }) => u.user.email);
    expect(emails).toEqual(expect.arrayContaining([world.admin.email, "dev@acme.test"]));
    const devMembership = await membershipOf("dev@acme.test");
    expect(devMembership).toMatchObject({ role: "member", status: "accepted", orgId: world.admin.orgId, userId: dev.userId });
    expect(JSON.stringify(listed.body)).not.toMatch(/passwordHash|scrypt/);

    const promoted = await api.request("PATCH", `${orgMembers()}/${devMembership.id}`, { token: admin(), body: { role: "admin" } });
    expect(promoted.body.membership).toMatchObject({ id: devMembership.id, role: "admin", user: { email: "dev@acme.test" } });
    // Now an admin, dev may list the organization's users.
    expect((await api.request("GET", orgMembers(), { token: dev.token })).status).toBe(200);
    // Nobody changes their own role.
    expectError(await api.request("PATCH", `${orgMembers()}/${devMembership.id}`, { token: dev.token, body: { role: "member" } }), 403);
    await api.request("PATCH", `${orgMembers()}/${devMembership.id}`, { token: admin(), body: { role: "member" } });
    expectError(await api.request("GET", orgMembers(), { token: dev.token }), 403);

    expectError(await api.request("PATCH", `${orgMembers()}/${devMembership.id}`, { token: admin(), body: { role: "owner" } }), 422);
    expectError(await api.request("PATCH", `${orgMembers()}/${devMembership.id}`, { token: admin(), body: { role: "admin", email: "x@y.z" } }), 422);
    expectError(await api.request("PATCH", `${orgMembers()}/00000000-0000-4000-8000-000000000000`, { token: admin(), body: { role: "admin" } }), 404);
    expectError(await api.request("PATCH", `${orgMembers()}/${devMembership.id}`, { token: rivalToken, body: { role: "admin" } }), 404);
    expectError(await api.request("GET", orgMembers(), { token: rivalToken }), 404);
    expectError(await api.request("GET", orgMembers()), 401);
  });

  maybe("removes a user from the organization and its projects; its access ends at once", async () => {
    const project = await createProject(api, admin(), { projectName: "Org removal" });
    const gone = await createUser(api, admin(), world.admin.orgId, "gone@acme.test");
    await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: admin(), body: { usernames: [gone.email], roleSlugs: ["member"] } });
    expect((await api.request("GET", `/api/v1/projects/${project.id}`, { token: gone.token })).status).toBe(200);
    const membership = await membershipOf(gone.email);

    const other = await createUser(api, admin(), world.admin.orgId, "bystander@acme.test");
    expectError(await api.request("DELETE", `${orgMembers()}/${membership.id}`, { token: other.token }), 403);
    expectError(await api.request("DELETE", `${orgMembers()}/${membership.id}`, { token: rivalToken }), 404);
    const removed = await api.request("DELETE", `${orgMembers()}/${membership.id}`, { token: admin() });
    expect(removed.body.membership).toMatchObject({ id: membership.id, user: { email: gone.email } });
    expectError(await api.request("GET", `/api/v1/projects/${project.id}`, { token: gone.token }), 404);
    const members = await api.request("GET", `/api/v1/projects/${project.id}/memberships`, { token: admin() });
    expect(members.body.memberships.map((m: { user: { email: string } }) => m.user.email)).not.toContain(gone.email);
    expectError(await api.request("DELETE", `${orgMembers()}/${membership.id}`, { token: admin() }), 404);

    // Anyone may leave; the last admin may not.
    const leaver = await createUser(api, admin(), world.admin.orgId, "leaver@acme.test");
    expect((await api.request("DELETE", `${orgMembers()}/${(await membershipOf(leaver.email)).id}`, { token: leaver.token })).status).toBe(200);
    const solo = await api.request("POST", "/api/v2/organizations", { token: world.admin.userToken, body: { name: "Solo" } });
    const soloMembers = await api.request("GET", `/api/v2/organizations/${solo.body.organization.id}/memberships`, { token: world.admin.userToken });
    expectError(await api.request("DELETE", `/api/v2/organizations/${solo.body.organization.id}/memberships/${soloMembers.body.users[0].id}`, { token: world.admin.userToken }), 400);
  });

  maybe("invites users by usernames or e-mails, lists, reads and removes their memberships", async () => {
    const project = await createProject(api, admin(), { projectName: "Team" });
    const ann = await createUser(api, admin(), world.admin.orgId, "ann@acme.test");
    const bob = await createUser(api, admin(), world.admin.orgId, "bob@acme.test");
    const cid = await createUser(api, admin(), world.admin.orgId, "cid@acme.test");
    const byEmail = await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: admin(), body: { emails: [ann.email], roleSlugs: ["viewer"] } });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.memberships).toMatchObject([{ userId: ann.userId, projectId: project.id, roles: [{ role: "viewer" }] }]);
    const byName = await api.request("POST", `/api/v1/projects/${project.id}/memberships`, { token: admin(), body: { usernames: [bob.email, cid.email] } });
    expect(byName.body.memberships.map((m: { roles: { role: string }[] }) => m.roles[0].role)).toEqual(["member", "member"]);
    expectError(await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: admin(), body: { roleSlugs: ["viewer"] } }), 422);
    expectError(await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: admin(), body: { emails: ["not-an-email"] } }), 422);
    expectError(await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: admin(), body: { emails: ["boss@rival.test"] } }), 404);

    const listed = await api.request("GET", `/api/v1/projects/${project.id}/memberships`, { token: ann.token });
    expect(listed.status).toBe(200);
    expect(listed.body.memberships.map((m: { user: { email: string } }) => m.user.email)).toEqual(expect.arrayContaining([ann.email, bob.email, cid.email]));
    expect((await api.request("GET", `/api/v1/workspace/${project.id}/memberships`, { token: ann.token })).body).toEqual(listed.body);
    const annMembership = byEmail.body.memberships[0].id;
    const one = await api.request("GET", `/api/v1/projects/${project.id}/memberships/${annMembership}`, { token: admin() });
    expect(one.body.membership).toMatchObject({ id: annMembership, userId: ann.userId, user: { email: ann.email }, roles: [{ role: "viewer" }] });

    // A viewer may not remove others, but may leave.
    const bobMembership = byName.body.memberships[0].id;
    expectError(await api.request("DELETE", `/api/v1/projects/${project.id}/memberships/${bobMembership}`, { token: ann.token }), 403);
    const left = await api.request("DELETE", `/api/v1/workspace/${project.id}/memberships/${annMembership}`, { token: ann.token });
    expect(left.body.membership).toMatchObject({ id: annMembership, userId: ann.userId });
    expectError(await api.request("GET", `/api/v1/projects/${project.id}`, { token: ann.token }), 403);

    const removed = await api.request("DELETE", `/api/v2/workspace/${project.id}/memberships`, { token: admin(), body: { emails: [bob.email], usernames: [cid.email] } });
    expect(removed.status).toBe(200);
    expect(removed.body.memberships.map((m: { userId: string }) => m.userId).sort()).toEqual([bob.userId, cid.userId].sort());
    expectError(await api.request("GET", `/api/v1/projects/${project.id}`, { token: bob.token }), 403);
    expectError(await api.request("DELETE", `/api/v2/workspace/${project.id}/memberships`, { token: admin(), body: { usernames: [bob.email] } }), 404);
    expectError(await api.request("DELETE", `/api/v2/workspace/${project.id}/memberships`, { token: admin(), body: {} }), 422);
    expectError(await api.request("DELETE", `/api/v2/workspace/${project.id}/memberships`, { token: admin(), body: { usernames: [cid.email], roles: ["admin"] } }), 422);
    expectError(await api.request("GET", `/api/v1/projects/${project.id}/memberships/${bobMembership}`, { token: admin() }), 404);
    expectError(await api.request("GET", `/api/v1/projects/${project.id}/memberships`, { token: rivalToken }), 404);
    expectError(await api.request("DELETE", `/api/v1/projects/${project.id}/memberships/${bobMembership}`, { token: rivalToken }), 404);
    expectError(await api.request("GET", `/api/v1/projects/${project.id}/memberships`, { token: bob.token }), 403);
    expectError(await api.request("GET", `/api/v1/projects/${project.id}/memberships`), 401);
  });

  maybe("lists, reads, changes and removes machine-identity memberships", async () => {
    const project = await createProject(api, admin(), { projectName: "Robots" });
    const bot = await createIdentity(api, admin(), world.admin.orgId, "robot");
    const base = `/api/v2/workspace/${project.id}/identity-memberships`;
    await api.request("POST", `${base}/${bot.identityId}`, { token: admin(), body: { role: "viewer" } });

    const listed = await api.request("GET", base, { token: admin() });
    expect(listed.status).toBe(200);
    const mine = listed.body.identityMemberships.find((m: { identityId: string }) => m.identityId === bot.identityId);
    expect(mine).toMatchObject({ projectId: project.id, identity: { id: bot.identityId, name: "robot", authMethods: ["universal-auth"] }, roles: [{ role: "viewer" }] });
    expect(listed.body.totalCount).toBe(listed.body.identityMemberships.length);
    const one = await api.request("GET", `${base}/${bot.identityId}`, { token: bot.token });
    expect(one.body.identityMembership).toEqual(mine);

    expectError(await api.request("PATCH", `${base}/${bot.identityId}`, { token: bot.token, body: { roles: [{ role: "admin", isTemporary: false }] } }), 403);
    const changed = await api.request("PATCH", `${base}/${bot.identityId}`, { token: admin(), body: { roles: [{ role: "member", isTemporary: false }] } });
    expect(changed.status).toBe(200);
    expect(changed.body.roles).toMatchObject([{ role: "member" }]);
    expectError(await api.request("PATCH", `${base}/${bot.identityId}`, { token: admin(), body: { roles: [{ role: "member", isTemporary: true, temporaryRange: "1h" }] } }), 422);
    expectError(await api.request("PATCH", `${base}/${bot.identityId}`, { token: admin(), body: { roles: [] } }), 422);
    expectError(await api.request("PATCH", `${base}/${bot.identityId}`, { token: rivalToken, body: { roles: [{ role: "admin", isTemporary: false }] } }), 404);
    expectError(await api.request("GET", `${base}/${bot.identityId}`, { token: rivalToken }), 404);
    expectError(await api.request("GET", base), 401);

    const removed = await api.request("DELETE", `${base}/${bot.identityId}`, { token: admin() });
    expect(removed.body.identityMembership).toMatchObject({ identityId: bot.identityId, identity: { name: "robot" } });
    expectError(await api.request("GET", `/api/v1/projects/${project.id}`, { token: bot.token }), 403);
    expectError(await api.request("GET", `${base}/${bot.identityId}`, { token: admin() }), 404);
    expectError(await api.request("DELETE", `${base}/${bot.identityId}`, { token: admin() }), 404);
  });
});
