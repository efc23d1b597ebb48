import { afterAll, beforeAll, expect, it } from "vitest";
import { anonymous, type Actor } from "@strongroom/core";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";

/**
 * An organization role governs organization-level actions only (DESIGN.md §11): a machine
 * identity created without `role` gets `no-access`, as in Infisical, and still works in the
 * projects it is a member of; it cannot create projects.
 */
forEachStore("organization roles", (store) => {
  let w: TestWorld;
  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open() });
    await w.sr.secrets.create(w.admin, { projectId: w.projectId, environment: "dev", secretName: "API_KEY", secretValue: "k-1" } as never);
  });
  afterAll(() => w?.close());

  async function loggedIn(identityId: string): Promise<Actor> {
    const { identityUniversalAuth } = await w.sr.identities.attachUniversalAuth(w.admin, { identityId });
    const { clientSecret } = await w.sr.identities.createClientSecret(w.admin, { identityId });
    const { accessToken } = await w.sr.auth.universalAuthLogin(anonymous, { clientId: identityUniversalAuth.clientId, clientSecret });
    return w.sr.authenticate(accessToken);
  }

  it("gives an identity created without a role the organization role no-access", async () => {
    const { identity } = await w.sr.identities.create(w.admin, { name: "roleless", organizationId: w.orgId });
    expect(identity.role).toBe("no-access");
    expect((await w.storage.tables.identities.get(identity.id))?.role).toBe("no-access");
  });

  it("lets a no-access identity use its project membership but not create projects", async () => {
    const { identity } = await w.sr.identities.create(w.admin, { name: "worker", organizationId: w.orgId });
    const bot = await loggedIn(identity.id);
    // Outside any project it sees nothing.
    await expect(w.sr.secrets.get(bot, { projectId: w.projectId, environment: "dev", secretName: "API_KEY" } as never)).rejects.toMatchObject({ code: "PermissionDenied" });
    await w.sr.memberships.addIdentity(w.admin, { projectId: w.projectId, identityId: identity.id, role: "member" });
    const { secret } = await w.sr.secrets.get(bot, { projectId: w.projectId, environment: "dev", secretName: "API_KEY" } as never);
    expect(secret.secretValue).toBe("k-1");
    await w.sr.secrets.create(bot, { projectId: w.projectId, environment: "dev", secretName: "WRITTEN_BY_BOT", secretValue: "v" } as never);
    const before = await w.storage.tables.projects.count();
    await expect(w.sr.projects.create(bot, { projectName: "Not allowed" })).rejects.toMatchObject({ code: "PermissionDenied" });
    expect(await w.storage.tables.projects.count()).toBe(before);
  });

  it("lets an identity with the organization role member create projects", async () => {
    const { identity } = await w.sr.identities.create(w.admin, { name: "builder", organizationId: w.orgId, role: "member" });
    const bot = await loggedIn(identity.id);
    const { project } = await w.sr.projects.create(bot, { projectName: "Built by a member" });
    expect(project.orgId).toBe(w.orgId);
  });

  it("lets a no-access user keep its project membership", async () => {
    const email = "quiet@acme.test";
    const password = "a long enough password";
    await w.sr.organizations.createUser(w.admin, { orgId: w.orgId, email, password, role: "no-access" });
    await w.sr.memberships.addUsers(w.admin, { projectId: w.projectId, usernames: [email], roleSlugs: ["viewer"] });
    const user = await w.sr.authenticate((await w.sr.auth.login(anonymous, { email, password })).accessToken);
    const { secret } = await w.sr.secrets.get(user, { projectId: w.projectId, environment: "dev", secretName: "API_KEY" } as never);
    expect(secret.secretValue).toBe("k-1");
    await expect(w.sr.projects.create(user, { projectName: "Nope" })).rejects.toMatchObject({ code: "PermissionDenied" });
  });
});
