import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Issue 15, principles 3 and 4, tried as an insider would over HTTP: time bounds are part of a
 * grant (a temporary or expired privilege made permanent, moved or widened runs the boundary; a
 * temporary role backs nothing that outlives it; nobody edits their own roles or privileges), and
 * changing someone's access requires holding it.
 */

const HOUR = 60 * 60 * 1000;
type Identity = Awaited<ReturnType<typeof createIdentity>>;
type User = Awaited<ReturnType<typeof createUser>>;

describe.each(backends)("insider grants on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let project: Awaited<ReturnType<typeof createProject>>;
  let seq = 0;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    project = await createProject(api, world.admin.token, { slug: "grants-app" });
  });
  afterAll(async () => {
    if (available) await api.close();
  });
  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  const admin = () => world.admin.token;
  const temporary = (range: string, start = api.clock.now()) => ({ isTemporary: true, temporaryMode: "relative", temporaryRange: range, temporaryAccessStartTime: start.toISOString() });

  async function customRole(permissions: unknown[]): Promise<string> {
    const slug = `role-${++seq}`;
    const res = await api.request("POST", `/api/v1/projects/${project.id}/roles`, { token: admin(), body: { slug, name: slug, permissions } });
    expect(res.status).toBe(200);
    return slug;
  }

  /** A machine identity of the organization, member of the project with these roles; returns it with its membership id. */
  async function identityWith(roles: unknown[]): Promise<Identity & { membershipId: string }> {
    const identity = await createIdentity(api, admin(), world.admin.orgId, `identity-${++seq}`);
    const res = await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${identity.identityId}`, { token: admin(), body: { roles } });
    expect(res.status).toBe(200);
    return { ...identity, membershipId: res.body.identityMembership.id };
  }

  async function userWith(roleSlugs: string[]): Promise<User & { membershipId: string }> {
    const user = await createUser(api, admin(), world.admin.orgId, `user-${++seq}@acme.test`);
    const res = await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token: admin(), body: { usernames: [user.email], roleSlugs } });
    expect(res.status).toBe(200);
    return { ...user, membershipId: res.body.memberships[0].id };
  }

  const permanent = (role: string) => ({ role, isTemporary: false });
  const readSecrets = [{ subject: "secrets", action: ["read"] }];

  async function temporaryPrivilege(identityId: string, range = "1h"): Promise<{ id: string; slug: string; temporaryAccessEndTime: string }> {
    const res = await api.request("POST", "/api/v2/identity-project-additional-privilege", {
      token: admin(),
      body: { identityId, projectId: project.id, slug: `temp-${++seq}`, permissions: readSecrets, type: temporary(range) },
    });
    expect(res.status).toBe(200);
    return res.body.privilege;
  }

  const getPrivilege = async (id: string) => (await api.request("GET", `/api/v2/identity-project-additional-privilege/${id}`, { token: admin() })).body.privilege;

  describe("principle 3: time bounds are part of a grant", () => {
    // Someone who may grant privileges but holds no secret access.
    const granterRole = () => customRole([{ subject: "identity", action: ["read", "grant-privileges"] }]);

    maybe("a privilege granter cannot make a temporary privilege they could not grant permanent (v2)", async () => {
      const lead = await identityWith([permanent(await granterRole())]);
      const bot = await identityWith([permanent("no-access")]);
      const privilege = await temporaryPrivilege(bot.identityId);

      const attempt = await api.request("PATCH", `/api/v2/identity-project-additional-privilege/${privilege.id}`, { token: lead.token, body: { type: { isTemporary: false } } });
      expect(expectError(attempt, 403, "PermissionBoundaryError").details.missingPermissions).toContainEqual({ subject: "secrets", action: "read" });
      expect(await getPrivilege(privilege.id)).toMatchObject({ isTemporary: true, temporaryAccessEndTime: privilege.temporaryAccessEndTime });

      // The identity holds more than the lead while the privilege runs: the lead changes nothing of it, not even its slug.
      const renamed = await api.request("PATCH", `/api/v2/identity-project-additional-privilege/${privilege.id}`, { token: lead.token, body: { slug: `renamed-${seq}` } });
      expectError(renamed, 403, "PermissionBoundaryError");
      expectError(await api.request("DELETE", `/api/v2/identity-project-additional-privilege/${privilege.id}`, { token: lead.token }), 403, "PermissionBoundaryError");
      // Someone who holds the permissions may.
      const byAdmin = await api.request("PATCH", `/api/v2/identity-project-additional-privilege/${privilege.id}`, { token: admin(), body: { type: { isTemporary: false } } });
      expect(byAdmin.body.privilege).toMatchObject({ isTemporary: false, temporaryAccessEndTime: null });
    });

    maybe("nor widen its range, move its start or revive it once expired (v2)", async () => {
      const lead = await identityWith([permanent(await granterRole())]);
      const bot = await identityWith([permanent("no-access")]);
      const privilege = await temporaryPrivilege(bot.identityId);
      const patch = (type: unknown) => api.request("PATCH", `/api/v2/identity-project-additional-privilege/${privilege.id}`, { token: lead.token, body: { type } });

      expectError(await patch(temporary("3650d")), 403, "PermissionBoundaryError");
      expectError(await patch(temporary("1h", new Date(api.clock.now().getTime() + 30 * 24 * HOUR))), 403, "PermissionBoundaryError");
      api.clock.advance(2 * HOUR);
      expectError(await patch(temporary("1h")), 403, "PermissionBoundaryError");
      expectError(await patch({ isTemporary: false }), 403, "PermissionBoundaryError");
      // Still expired, still the admin's window.
      expect(await getPrivilege(privilege.id)).toMatchObject({ isTemporary: true, temporaryAccessEndTime: privilege.temporaryAccessEndTime });
      expectError(await api.request("GET", `/api/v3/secrets/raw?workspaceId=${project.id}&environment=dev`, { token: bot.token }), 403);
      // Once it has expired the identity holds nothing the lead lacks: only the window is a grant, a new slug is not.
      expect((await api.request("PATCH", `/api/v2/identity-project-additional-privilege/${privilege.id}`, { token: lead.token, body: { slug: `expired-${seq}` } })).status).toBe(200);
    });

    maybe("the same through v1's PATCH", async () => {
      const lead = await identityWith([permanent(await granterRole())]);
      const bot = await identityWith([permanent("no-access")]);
      const privilege = await temporaryPrivilege(bot.identityId);
      const patch = (privilegeDetails: unknown) =>
        api.request("PATCH", "/api/v1/additional-privilege/identity", {
          token: lead.token,
          body: { identityId: bot.identityId, projectSlug: project.slug, privilegeSlug: privilege.slug, privilegeDetails },
        });
      expectError(await patch({ isTemporary: false }), 403, "PermissionBoundaryError");
      expectError(await patch(temporary("3650d")), 403, "PermissionBoundaryError");
      api.clock.advance(2 * HOUR);
      expectError(await patch(temporary("1h")), 403, "PermissionBoundaryError");
      expect(await getPrivilege(privilege.id)).toMatchObject({ isTemporary: true, temporaryAccessEndTime: privilege.temporaryAccessEndTime });
      expect((await patch({ slug: `v1-renamed-${seq}` })).status).toBe(200);
    });

    maybe("a temporary role backs no grant that outlives it", async () => {
      // Grants privileges for good, reads secrets for one hour.
      const lead = await identityWith([permanent(await granterRole()), { role: await customRole(readSecrets), ...temporary("1h") }]);
      const bot = await identityWith([permanent("no-access")]);
      const grant = (type: unknown, slug = `g-${++seq}`) =>
        api.request("POST", "/api/v2/identity-project-additional-privilege", {
          token: lead.token,
          body: { identityId: bot.identityId, projectId: project.id, slug, permissions: readSecrets, type },
        });

      const forever = expectError(await grant({ isTemporary: false }), 403, "PermissionBoundaryError");
      expect(forever.message).toMatch(/longer than you hold them/);
      expectError(await grant(temporary("2h")), 403, "PermissionBoundaryError");
      expectError(await grant(temporary("30m", new Date(api.clock.now().getTime() + 45 * 60 * 1000))), 403, "PermissionBoundaryError");
      const within = await grant(temporary("30m"));
      expect(within.status).toBe(200);
      // Nor may the lead stretch what it granted past its own hour.
      const stretch = await api.request("PATCH", `/api/v2/identity-project-additional-privilege/${within.body.privilege.id}`, { token: lead.token, body: { type: temporary("1d") } });
      expectError(stretch, 403, "PermissionBoundaryError");
    });

    maybe("a temporary admin cannot hand out permanent roles, nor custom roles that outlive it", async () => {
      const lead = await userWith(["member"]);
      await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${lead.membershipId}`, {
        token: admin(),
        body: { roles: [permanent("no-access"), { role: "admin", ...temporary("1h") }] },
      });
      const dev = await userWith(["no-access"]);
      const patch = (roles: unknown[]) => api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${dev.membershipId}`, { token: lead.token, body: { roles } });

      expectError(await patch([permanent("admin")]), 403, "PermissionBoundaryError");
      expectError(await patch([permanent("no-access"), { role: "member", ...temporary("2h") }]), 403, "PermissionBoundaryError");
      expect((await patch([permanent("no-access"), { role: "member", ...temporary("45m") }])).status).toBe(200);
      const role = await api.request("POST", `/api/v1/projects/${project.id}/roles`, { token: lead.token, body: { slug: `forever-${++seq}`, name: "forever", permissions: readSecrets } });
      expectError(role, 403, "PermissionBoundaryError");
    });

    maybe("nobody grants, changes or removes their own privileges", async () => {
      const lead = await identityWith([permanent("admin")]);
      const own = await api.request("POST", "/api/v2/identity-project-additional-privilege", {
        token: lead.token,
        body: { identityId: lead.identityId, projectId: project.id, slug: `own-${++seq}`, permissions: readSecrets },
      });
      expectError(own, 403, "PermissionDenied");
      const granted = await temporaryPrivilege(lead.identityId);
      expectError(await api.request("PATCH", `/api/v2/identity-project-additional-privilege/${granted.id}`, { token: lead.token, body: { type: { isTemporary: false } } }), 403);
      expectError(
        await api.request("PATCH", "/api/v1/additional-privilege/identity", {
          token: lead.token,
          body: { identityId: lead.identityId, projectSlug: project.slug, privilegeSlug: granted.slug, privilegeDetails: { isTemporary: false } },
        }),
        403,
      );
      expectError(await api.request("DELETE", `/api/v2/identity-project-additional-privilege/${granted.id}`, { token: lead.token }), 403);
      expect(await getPrivilege(granted.id)).toMatchObject({ isTemporary: true, temporaryAccessEndTime: granted.temporaryAccessEndTime });
      // Reading them stays allowed.
      expect((await api.request("GET", `/api/v2/identity-project-additional-privilege/${granted.id}`, { token: lead.token })).status).toBe(200);
    });

    maybe("nobody edits their own membership roles, not even an admin", async () => {
      const lead = await userWith(["admin"]);
      const attempt = await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${lead.membershipId}`, {
        token: lead.token,
        body: { roles: [permanent("admin"), { role: "admin", ...temporary("1h") }] },
      });
      expect(expectError(attempt, 403, "PermissionDenied").message).toMatch(/your own roles/);
      const bot = await identityWith([permanent("admin")]);
      expectError(
        await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${bot.membershipId}`, { token: bot.token, body: { roles: [permanent("viewer")] } }),
        403,
        "PermissionDenied",
      );
    });
  });

  describe("principle 4: changing someone's access requires holding it", () => {
    const memberManager = () => customRole([{ subject: "member", action: ["read", "edit"] }]);
    const rolesOf = async (username: string) =>
      (await api.request("POST", `/api/v1/workspace/${project.id}/memberships/details`, { token: admin(), body: { username } })).body.membership.roles.map(
        (r: { role: string }) => r.role,
      );

    maybe("member edit rights alone cannot demote a project admin", async () => {
      const hr = await identityWith([permanent(await memberManager())]);
      const boss = await userWith(["admin"]);
      const attempt = await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${boss.membershipId}`, { token: hr.token, body: { roles: [permanent("no-access")] } });
      const body = expectError(attempt, 403, "PermissionBoundaryError");
      expect(body.details.missingPermissions.length).toBeGreaterThan(0);
      expect(await rolesOf(boss.email)).toEqual(["admin"]);
      // The boss keeps working.
      expect((await api.request("GET", `/api/v3/secrets/raw?workspaceId=${project.id}&environment=dev`, { token: boss.token })).status).toBe(200);
    });

    maybe("nor any member holding more than the actor, a temporary or future role included", async () => {
      const hr = await identityWith([permanent(await memberManager())]);
      const viewer = await userWith(["viewer"]);
      expectError(
        await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${viewer.membershipId}`, { token: hr.token, body: { roles: [permanent("no-access")] } }),
        403,
        "PermissionBoundaryError",
      );
      const later = await userWith(["no-access"]);
      await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${later.membershipId}`, {
        token: admin(),
        body: { roles: [permanent("no-access"), { role: "admin", ...temporary("1h", new Date(api.clock.now().getTime() + 24 * HOUR)) }] },
      });
      expectError(
        await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${later.membershipId}`, { token: hr.token, body: { roles: [permanent("no-access")] } }),
        403,
        "PermissionBoundaryError",
      );
      // A member holding nothing the actor lacks can be changed.
      const nobody = await userWith(["no-access"]);
      const allowed = await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${nobody.membershipId}`, { token: hr.token, body: { roles: [permanent("no-access")] } });
      expect(allowed.status).toBe(200);
    });

    maybe("member rights do not rewrite a machine identity's roles", async () => {
      const hr = await identityWith([permanent(await memberManager())]);
      const bot = await identityWith([permanent("no-access")]);
      const attempt = await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${bot.membershipId}`, { token: hr.token, body: { roles: [permanent("no-access")] } });
      expect(expectError(attempt, 403, "PermissionDenied").message).toMatch(/identity/);
      const keeper = await identityWith([permanent(await customRole([{ subject: "identity", action: ["read", "edit"] }]))]);
      const allowed = await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${bot.membershipId}`, { token: keeper.token, body: { roles: [permanent("no-access")] } });
      expect(allowed.status).toBe(200);
      // identity rights do not rewrite a user's.
      const dev = await userWith(["no-access"]);
      expectError(
        await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${dev.membershipId}`, { token: keeper.token, body: { roles: [permanent("no-access")] } }),
        403,
        "PermissionDenied",
      );
    });

    maybe("an actor without membership rights learns nothing of which memberships exist", async () => {
      const outsider = await userWith(["viewer"]);
      const target = await userWith(["no-access"]);
      for (const membershipId of [target.membershipId, "00000000-0000-4000-8000-000000000000"]) {
        expectError(
          await api.request("PATCH", `/api/v1/projects/${project.id}/memberships/${membershipId}`, { token: outsider.token, body: { roles: [permanent("no-access")] } }),
          403,
          "PermissionDenied",
        );
      }
    });

    maybe("privilege rights alone do not change the privileges of an identity holding more", async () => {
      const lead = await identityWith([permanent(await customRole([{ subject: "identity", action: ["read", "grant-privileges"] }]))]);
      const strong = await identityWith([permanent("member")]);
      const grant = await api.request("POST", "/api/v2/identity-project-additional-privilege", {
        token: lead.token,
        body: { identityId: strong.identityId, projectId: project.id, slug: `p-${++seq}`, permissions: [{ subject: "identity", action: ["read"] }] },
      });
      expectError(grant, 403, "PermissionBoundaryError");
      const existing = await api.request("POST", "/api/v2/identity-project-additional-privilege", {
        token: admin(),
        body: { identityId: strong.identityId, projectId: project.id, slug: `p-${++seq}`, permissions: [{ subject: "identity", action: ["read"] }] },
      });
      expectError(await api.request("DELETE", `/api/v2/identity-project-additional-privilege/${existing.body.privilege.id}`, { token: lead.token }), 403, "PermissionBoundaryError");
      expectError(
        await api.request("DELETE", "/api/v1/additional-privilege/identity", {
          token: lead.token,
          body: { identityId: strong.identityId, projectSlug: project.slug, privilegeSlug: existing.body.privilege.slug },
        }),
        403,
        "PermissionBoundaryError",
      );
      expect((await api.request("GET", `/api/v2/identity-project-additional-privilege/${existing.body.privilege.id}`, { token: admin() })).status).toBe(200);
    });

    maybe("changing a custom role needs every permission it already grants", async () => {
      const powerful = await customRole([{ subject: "secrets", action: ["read", "create", "edit", "delete"] }]);
      const roles = await api.request("GET", `/api/v1/projects/${project.id}/roles`, { token: admin() });
      const id = roles.body.roles.find((r: { slug: string }) => r.slug === powerful).id;
      const editor = await identityWith([permanent(await customRole([{ subject: "role", action: ["read", "edit"] }]))]);
      const attempt = await api.request("PATCH", `/api/v1/projects/${project.id}/roles/${id}`, { token: editor.token, body: { permissions: [] } });
      expectError(attempt, 403, "PermissionBoundaryError");
      const after = await api.request("GET", `/api/v1/projects/${project.id}/roles/${id}`, { token: admin() });
      expect(after.body.role.permissions).toHaveLength(1);
    });
  });
});
