import { afterAll, beforeAll, expect, it } from "vitest";
import { anonymous } from "@strongroom/core";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";

/**
 * Tenancy's read-modify-writes hold under concurrency on every store: failed logins are all
 * counted, a use-limited client secret is never overspent, concurrent role replacements leave one
 * of the role sets (never a mix), and a privilege update answers with the row as it stored it.
 */
forEachStore("tenancy's read-modify-writes", (store) => {
  let w: TestWorld;
  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open() });
  });
  afterAll(() => w?.close());

  /** A machine identity of the organization with universal auth and one client secret. */
  async function credentials(name: string, numUsesLimit = 0) {
    const { identity } = await w.sr.identities.create(w.admin, { name, organizationId: w.orgId });
    const { identityUniversalAuth } = await w.sr.identities.attachUniversalAuth(w.admin, { identityId: identity.id });
    const { clientSecret } = await w.sr.identities.createClientSecret(w.admin, { identityId: identity.id, numUsesLimit });
    return { identityId: identity.id, clientId: identityUniversalAuth.clientId, clientSecret };
  }

  const codeOf = (attempt: Promise<unknown>) => attempt.then(() => "ok", (error: { code?: string }) => error.code ?? "?");

  it("counts concurrent failed logins of one client id, so the third locks it", async () => {
    const bot = await credentials("lockout");
    const wrong = () => codeOf(w.sr.auth.universalAuthLogin(anonymous, { clientId: bot.clientId, clientSecret: "wrong" }));
    expect(await Promise.all([wrong(), wrong(), wrong()])).toEqual(["UnauthorizedError", "UnauthorizedError", "UnauthorizedError"]);
    expect(await codeOf(w.sr.auth.universalAuthLogin(anonymous, { clientId: bot.clientId, clientSecret: bot.clientSecret }))).toBe("RateLimitExceeded");
    w.clock.advance(5 * 60 * 1000 + 1000);
    expect(await codeOf(w.sr.auth.universalAuthLogin(anonymous, { clientId: bot.clientId, clientSecret: bot.clientSecret }))).toBe("ok");
    expect((await w.storage.tables.universalAuths.findOne({ clientId: bot.clientId }))?.failedLogins).toBe(0);
  });

  it("lets exactly one of several concurrent logins spend a single-use client secret", async () => {
    const bot = await credentials("single-use", 1);
    const login = () => codeOf(w.sr.auth.universalAuthLogin(anonymous, { clientId: bot.clientId, clientSecret: bot.clientSecret }));
    const outcomes = await Promise.all([login(), login(), login()]);
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(1);
    expect(outcomes.filter((o) => o !== "ok")).toEqual(["UnauthorizedError", "UnauthorizedError"]);
    expect(await w.storage.tables.clientSecrets.findOne({ identityId: bot.identityId })).toMatchObject({ numUses: 1, numUsesLimit: 1 });
  });

  it("leaves one whole role set after concurrent replacements of a membership's roles", async () => {
    const member = await w.userWith(["viewer"], "replaced@acme.test");
    const userId = member.type === "user" ? member.userId : "";
    const membership = await w.storage.tables.projectMemberships.findOne({ projectId: w.projectId, userId });
    const sets = [["member"], ["viewer", "no-access"], ["admin"]];
    const replace = (roles: string[]) =>
      w.sr.memberships.updateRoles(w.admin, { projectId: w.projectId, membershipId: membership!.id, roles: roles.map((role) => ({ role, isTemporary: false })) });
    await Promise.all(sets.map(replace));
    const stored = await w.storage.tables.membershipRoles.find({ membershipId: membership!.id });
    expect(sets.map((s) => [...s].sort().join())).toContain(stored.map((r) => r.role).sort().join());
  });

  it("answers each of two concurrent updates of a privilege with the row as stored, the other's change included", async () => {
    const bot = await w.identityWith(["no-access"], "privileged");
    const { privilege } = await w.sr.privilegesV2.create(w.admin, {
      identityId: bot.identityId,
      projectId: w.projectId,
      slug: "first",
      permissions: [{ subject: "secrets", action: "read" }],
    });
    const [a, b] = await Promise.all([
      w.sr.privilegesV2.update(w.admin, { id: privilege.id, slug: "renamed" }),
      w.sr.privilegesV2.update(w.admin, { id: privilege.id, permissions: [{ subject: "tags", action: "read" }] }),
    ]);
    const { privilege: stored } = await w.sr.privilegesV2.get(w.admin, { id: privilege.id });
    expect(stored).toMatchObject({ slug: "renamed", permissions: [{ subject: "tags", action: "read" }] });
    expect([a.privilege, b.privilege]).toContainEqual(stored);
  });
});
