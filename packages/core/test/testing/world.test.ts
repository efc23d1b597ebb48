import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";

forEachStore("the test world", (store) => {
  let w: TestWorld;
  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open() });
  });
  afterAll(() => w?.close());

  it("starts with an organization, its admin and a project the admin administers", async () => {
    const { project } = await w.sr.projects.get(w.admin, { projectId: w.projectId } as never);
    expect(project).toMatchObject({ id: w.projectId, slug: w.projectSlug, orgId: w.orgId });
  });

  it("adds users and identities whose tokens carry exactly their roles", async () => {
    const viewer = await w.userWith(["viewer"]);
    const bot = await w.identityWith(["member"]);
    expect(await w.sr.authenticate(bot.token)).toEqual(bot.actor);
    const at = { projectId: w.projectId, environment: "dev", secretPath: "/" };
    await w.sr.secrets.create(bot.actor, { ...at, secretName: "BY_BOT", secretValue: "v" });
    await expect(w.sr.secrets.create(viewer, { ...at, secretName: "BY_VIEWER", secretValue: "v" })).rejects.toMatchObject({ code: "PermissionDenied" });
    expect((await w.sr.secrets.get(viewer, { ...at, secretName: "BY_BOT" })).secret.secretValue).toBe("v");
    expect(w.events.map((e) => e.eventType)).toContain("secret:create");
  });
});
