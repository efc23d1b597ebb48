import { beforeEach, describe, expect, it } from "vitest";
import { at, secretsWorld, type SecretsWorld } from "./world.js";

const DAY = 24 * 60 * 60 * 1000;

describe("environments", () => {
  let w: SecretsWorld;
  beforeEach(async () => {
    w = await secretsWorld();
  });

  it("creates, renames and refuses a duplicate slug", async () => {
    const created = await w.sr.environments.create(w.admin, { workspaceId: w.projectId, name: "QA", slug: "qa" });
    expect(created.environment).toMatchObject({ name: "QA", slug: "qa", position: 4, projectId: w.projectId });
    expect(created.workspace.environments.map((e) => e.slug)).toEqual(["dev", "staging", "prod", "qa"]);
    await expect(w.sr.environments.create(w.admin, { workspaceId: w.projectId, name: "Again", slug: "qa" })).rejects.toMatchObject({ code: "BadRequest" });
    const renamed = await w.sr.environments.update(w.admin, { workspaceId: w.projectId, id: created.environment.id, name: "Quality", slug: "quality" });
    expect(renamed.environment).toMatchObject({ name: "Quality", slug: "quality" });
    await expect(
      w.sr.environments.update(w.admin, { workspaceId: w.projectId, id: created.environment.id, slug: "dev" }),
    ).rejects.toMatchObject({ code: "BadRequest" });
  });

  it("soft-deletes: listed under deletedEnvironments for 30 days, its secrets unreachable", async () => {
    await w.sr.secrets.create(w.admin, { ...at(w, "staging"), secretName: "K", secretValue: "v" });
    const { project } = await w.sr.projects.get(w.admin, { projectId: w.projectId });
    const staging = project.environments.find((e) => e.slug === "staging")!;
    const deleter = await w.userWith(["admin"], "deleter@acme.test");
    const { workspace } = await w.sr.environments.delete(deleter, { workspaceId: w.projectId, id: staging.id });
    expect(workspace.environments.map((e) => e.slug)).toEqual(["dev", "prod"]);
    const now = w.clock.now();
    expect(workspace.deletedEnvironments).toEqual([
      {
        id: staging.id,
        name: "Staging",
        slug: "staging",
        softDeletedAt: now.toISOString(),
        deleteAfter: new Date(now.getTime() + 30 * DAY).toISOString(),
        deletedBy: { type: "user", id: (deleter as { userId: string }).userId, email: "deleter@acme.test", username: "deleter@acme.test", firstName: "", lastName: "" },
      },
    ]);
    await expect(w.sr.secrets.get(w.admin, { ...at(w, "staging"), secretName: "K" })).rejects.toMatchObject({ code: "NotFound" });
    await expect(w.sr.secrets.list(w.admin, at(w, "staging"))).rejects.toMatchObject({ code: "NotFound" });
    await expect(w.sr.secrets.create(w.admin, { ...at(w, "staging"), secretName: "K2" })).rejects.toMatchObject({ code: "NotFound" });
    await expect(w.sr.environments.delete(w.admin, { workspaceId: w.projectId, id: staging.id })).rejects.toMatchObject({ code: "NotFound" });

    // The slug is free again; the new environment starts empty.
    await w.sr.environments.create(w.admin, { workspaceId: w.projectId, name: "Staging", slug: "staging" });
    expect((await w.sr.secrets.list(w.admin, at(w, "staging"))).secrets).toEqual([]);
  });

  it("a viewer may not create environments", async () => {
    const viewer = await w.userWith(["viewer"]);
    await expect(w.sr.environments.create(viewer, { workspaceId: w.projectId, name: "X", slug: "x" })).rejects.toMatchObject({ code: "PermissionDenied" });
  });
});
