import { afterAll, beforeAll, expect, it } from "vitest";
import { anonymous } from "@strongroom/core";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";

/**
 * A project is created whole — its data keys, its row, its environments and its creator's admin
 * membership — on every store, or not at all.
 */
forEachStore("creating a project", (store) => {
  let w: TestWorld;
  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open() });
  });
  afterAll(() => w?.close());

  it("writes the project, its default environments, its data keys and its creator's admin membership", async () => {
    const { project } = await w.sr.projects.create(w.admin, { projectName: "Ledger" });
    const t = w.storage.tables;
    const row = await t.projects.get(project.id);
    expect(row).toMatchObject({ name: "Ledger", orgId: w.orgId, type: "secret-manager", template: "default" });

    const envs = await t.environments.find({ projectId: project.id }, { orderBy: [["position", "asc"]] });
    expect(envs.map((e) => [e.slug, e.position])).toEqual([["dev", 1], ["staging", 2], ["prod", 3]]);
    expect(project.environments.map((e) => e.id)).toEqual(envs.map((e) => e.id));

    const keys = await t.kmsKeys.find({ projectId: project.id });
    expect(keys.map((k) => k.purpose).sort()).toEqual(["certificates", "secret-manager"]);
    expect(keys.map((k) => k.id).sort()).toEqual([row!.kmsCertificateKeyId, row!.kmsSecretManagerKeyId].sort());

    const admin = w.admin.type === "identity" ? w.admin.identityId : "";
    const memberships = await t.projectMemberships.find({ projectId: project.id });
    expect(memberships).toMatchObject([{ identityId: admin, userId: null }]);
    const roles = await t.membershipRoles.find({ membershipId: memberships[0].id });
    expect(roles).toMatchObject([{ role: "admin", customRoleId: null, isTemporary: false }]);
  });

  it("makes a user who creates a project its admin member, without default environments on request", async () => {
    const email = "creator@acme.test";
    const password = "a long enough password";
    const { user } = await w.sr.organizations.createUser(w.admin, { orgId: w.orgId, email, password });
    const creator = await w.sr.authenticate((await w.sr.auth.login(anonymous, { email, password })).accessToken);
    const { project } = await w.sr.projects.create(creator, { projectName: "Bare", shouldCreateDefaultEnvs: false });
    expect(project.environments).toEqual([]);
    expect(await w.storage.tables.environments.count({ projectId: project.id })).toBe(0);
    const membership = await w.storage.tables.projectMemberships.findOne({ projectId: project.id, userId: user.id });
    expect(await w.storage.tables.membershipRoles.find({ membershipId: membership!.id })).toMatchObject([{ role: "admin" }]);
    expect((await w.sr.projects.get(creator, { projectId: project.id })).project).toEqual(project);
  });

  it("takes kmsKeyId only for a data key of the organization itself, never another project's", async () => {
    const t = w.storage.tables;
    const other = (await t.projects.get(w.projectId))!;
    for (const kmsKeyId of [other.kmsSecretManagerKeyId, other.kmsCertificateKeyId]) {
      await expect(w.sr.projects.create(w.admin, { projectName: "Borrower", kmsKeyId })).rejects.toMatchObject({ code: "BadRequest" });
    }
    const [orgKey] = await t.kmsKeys.find({ orgId: w.orgId, projectId: null });
    const { project } = await w.sr.projects.create(w.admin, { projectName: "On the organization's key", kmsKeyId: orgKey!.id });
    expect((await t.projects.get(project.id))!.kmsSecretManagerKeyId).toBe(orgKey!.id);
  });

  it("writes nothing when the project is refused", async () => {
    const t = w.storage.tables;
    const before = { projects: await t.projects.count(), keys: await t.kmsKeys.count(), memberships: await t.projectMemberships.count() };
    await expect(w.sr.projects.create(w.admin, { projectName: "Keyless", kmsKeyId: "no-such-key" })).rejects.toMatchObject({ code: "BadRequest" });
    await expect(w.sr.projects.create(w.admin, { projectName: "Twin", slug: w.projectSlug })).rejects.toMatchObject({ code: "BadRequest" });
    expect({ projects: await t.projects.count(), keys: await t.kmsKeys.count(), memberships: await t.projectMemberships.count() }).toEqual(before);
  });
});
