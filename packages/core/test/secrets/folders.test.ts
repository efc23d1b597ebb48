import { beforeEach, describe, expect, it } from "vitest";
import { at, secretsWorld, type SecretsWorld } from "./world.js";

describe("folders", () => {
  let w: SecretsWorld;
  const where = (path = "/") => ({ projectId: w.projectId, environment: "dev", path });
  beforeEach(async () => {
    w = await secretsWorld();
  });

  it("form a tree per environment with normalised paths, creating missing parents", async () => {
    const { folder } = await w.sr.folders.create(w.admin, { ...where("//apps/"), name: "web" });
    expect(folder).toMatchObject({ name: "web", path: "/apps/web" });
    const top = await w.sr.folders.list(w.admin, where());
    expect(top.folders.map((f) => f.path)).toEqual(["/apps"]);
    expect(top.folders[0].parentId).toBe(folder.envId);
    const all = await w.sr.folders.list(w.admin, { ...where(), recursive: "true" });
    expect(all.folders.map((f) => f.path)).toEqual(["/apps", "/apps/web"]);
    expect((await w.sr.folders.list(w.admin, { ...where(), environment: "prod" })).folders).toEqual([]);
    await w.sr.secrets.create(w.admin, { ...at(w, "dev", "/apps/web/"), secretName: "K", secretValue: "v" });
    expect((await w.sr.secrets.get(w.admin, { ...at(w, "dev", "apps//web"), secretName: "K" })).secret.secretPath).toBe("/apps/web");
  });

  it("refuses duplicates (400), bad names (422) and missing paths (404)", async () => {
    await w.sr.folders.create(w.admin, { ...where(), name: "a" });
    await expect(w.sr.folders.create(w.admin, { ...where(), name: "a" })).rejects.toMatchObject({ code: "BadRequest" });
    await expect(w.sr.folders.create(w.admin, { ...where(), name: "../x" })).rejects.toMatchObject({ code: "ValidationFailure" });
    await expect(w.sr.folders.create(w.admin, { ...where("/a/.."), name: "x" })).rejects.toMatchObject({ code: "ValidationFailure" });
    await expect(w.sr.folders.list(w.admin, where("/missing"))).rejects.toMatchObject({ code: "NotFound" });
    await expect(w.sr.secrets.create(w.admin, { ...at(w, "dev", "/missing"), secretName: "K" })).rejects.toMatchObject({ code: "NotFound" });
  });

  it("checks the folder permission on the parent of every folder it creates", async () => {
    const appsOnly = await w.userWith([
      await w.role("apps-folders", [{ subject: "secret-folders", action: ["read", "create"], conditions: { secretPath: { $glob: "/apps/**" } } }]),
    ]);
    await w.sr.folders.create(w.admin, { ...where(), name: "apps" });
    await w.sr.folders.create(appsOnly, { ...where("/apps/team"), name: "svc" });
    await expect(w.sr.folders.create(appsOnly, { ...where("/other"), name: "svc" })).rejects.toMatchObject({ code: "PermissionDenied" });
    expect((await w.sr.folders.list(w.admin, { ...where(), recursive: true })).folders.map((f) => f.path)).toEqual([
      "/apps",
      "/apps/team",
      "/apps/team/svc",
    ]);
  });

  it("deletes a folder with everything below it, by name, id or path; never the root", async () => {
    const { folder } = await w.sr.folders.create(w.admin, { ...where("/a"), name: "b" });
    await w.sr.folders.create(w.admin, { ...where(), name: "c" });
    await w.sr.secrets.create(w.admin, { ...at(w, "dev", "/a/b"), secretName: "K" });
    await w.sr.folders.delete(w.admin, { ...where("/a"), folderIdOrName: folder.id });
    expect((await w.sr.folders.list(w.admin, { ...where(), recursive: true })).folders.map((f) => f.path)).toEqual(["/a", "/c"]);
    await w.sr.folders.delete(w.admin, where("/c"));
    await w.sr.folders.delete(w.admin, { ...where(), folderIdOrName: "a" });
    expect((await w.sr.folders.list(w.admin, { ...where(), recursive: true })).folders).toEqual([]);
    expect(await w.storage.tables.secrets.count({ projectId: w.projectId })).toBe(0);
    await expect(w.sr.folders.delete(w.admin, where())).rejects.toMatchObject({ code: "BadRequest" });
  });
});
