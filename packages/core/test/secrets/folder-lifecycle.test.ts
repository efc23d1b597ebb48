import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { at, freshProject, type SecretsWorld } from "./world.js";

/**
 * Folders read by id and renamed, on every store. A rename moves everything below the folder, so
 * it is authorized like a move: on every secret, folder, import and proxied service it carries,
 * as each is and as it will be.
 */
forEachStore("folder lifecycle", (store) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld({ storage: await store.open() });
  });
  afterAll(() => world?.close());

  const where = (w: SecretsWorld, path = "/", environment = "dev") => ({ projectId: w.projectId, environment, path });
  const paths = async (w: SecretsWorld) => (await w.sr.folders.list(w.admin, { ...where(w), recursive: true })).folders.map((f) => f.path);
  const codeOf = (attempt: Promise<unknown>) => attempt.then(() => "ok", (error: { code?: string }) => error.code ?? String(error));

  it("gets a folder by id with its environment, path and project", async () => {
    const w = await freshProject(world);
    const { folder } = await w.sr.folders.create(w.admin, { ...where(w, "/apps"), name: "web", description: "front end" });
    const got = await w.sr.folders.get(w.admin, { id: folder.id });
    expect(got.folder).toMatchObject({ id: folder.id, name: "web", path: "/apps/web", description: "front end", projectId: w.projectId });
    expect(got.folder.environment).toMatchObject({ envSlug: "dev", envName: "Development", envId: folder.envId });
    expect(await codeOf(w.sr.folders.get(w.admin, { id: "00000000-0000-4000-8000-000000000000" }))).toBe("NotFound");

    const blind = await w.userWith([await w.role("no-folders", [{ subject: "secrets", action: "read" }])]);
    expect(await codeOf(w.sr.folders.get(blind, { id: folder.id }))).toBe("PermissionDenied");
    const prodOnly = await w.userWith([await w.role("prod-folders", [{ subject: "secret-folders", action: "read", conditions: { environment: "prod" } }])]);
    expect(await codeOf(w.sr.folders.get(prodOnly, { id: folder.id }))).toBe("PermissionDenied");
  });

  it("renames a folder with everything below it; secrets, versions and imports follow", async () => {
    const w = await freshProject(world);
    const { folder } = await w.sr.folders.create(w.admin, { ...where(w, "/apps"), name: "web" });
    await w.sr.folders.create(w.admin, { ...where(w, "/apps/web"), name: "static" });
    await w.sr.folders.create(w.admin, { ...where(w), name: "apps-archive" });
    const { secret } = await w.sr.secrets.create(w.admin, { ...at(w, "dev", "/apps/web/static"), secretName: "CDN_KEY", secretValue: "v1" });
    await w.sr.secrets.update(w.admin, { ...at(w, "dev", "/apps/web/static"), secretName: "CDN_KEY", secretValue: "v2" });
    await w.sr.secretImports.create(w.admin, { ...where(w, "/", "prod"), import: { environment: "dev", path: "/apps/web/static" } });

    const renamed = await w.sr.folders.update(w.admin, { projectId: w.projectId, environment: "dev", folderId: folder.id, name: "site" });
    expect(renamed.folder).toMatchObject({ id: folder.id, name: "site", path: "/apps/site" });
    expect(await paths(w)).toEqual(["/apps", "/apps-archive", "/apps/site", "/apps/site/static"]);
    const moved = await w.sr.secrets.get(w.admin, { ...at(w, "dev", "/apps/site/static"), secretName: "CDN_KEY", version: 1 });
    expect(moved.secret).toMatchObject({ id: secret.id, secretValue: "v1", secretPath: "/apps/site/static" });
    expect(await codeOf(w.sr.secrets.get(w.admin, { ...at(w, "dev", "/apps/web/static"), secretName: "CDN_KEY" }))).not.toBe("ok");
    const { imports } = await w.sr.secrets.list(w.admin, { ...at(w, "prod"), includeImports: true });
    expect(imports.map((i) => [i.secretPath, i.secrets.map((s) => s.secretValue)])).toEqual([["/apps/site/static", ["v2"]]]);

    // Description only: nothing moves; `path` may name the parent, and must be right when it does.
    const described = await w.sr.folders.update(w.admin, { projectId: w.projectId, environment: "dev", folderId: folder.id, path: "/apps", description: "the site" });
    expect(described.folder).toMatchObject({ path: "/apps/site", description: "the site" });
    const wrongParent = { projectId: w.projectId, environment: "dev", folderId: folder.id, path: "/", name: "x" };
    expect(await codeOf(w.sr.folders.update(w.admin, wrongParent))).toBe("NotFound");
    expect(await codeOf(w.sr.folders.update(w.admin, { ...wrongParent, environment: "prod", path: "/apps" }))).toBe("NotFound");
  });

  it("refuses a taken name, a bad name and an empty change, changing nothing", async () => {
    const w = await freshProject(world);
    const { folder } = await w.sr.folders.create(w.admin, { ...where(w), name: "a" });
    await w.sr.folders.create(w.admin, { ...where(w, "/a"), name: "inner" });
    await w.sr.folders.create(w.admin, { ...where(w), name: "b" });
    const rename = (body: Record<string, unknown>) => w.sr.folders.update(w.admin, { projectId: w.projectId, environment: "dev", folderId: folder.id, ...body } as never);
    expect(await codeOf(rename({ name: "b" }))).toBe("BadRequest");
    expect(await codeOf(rename({ name: "../b" }))).toBe("ValidationFailure");
    expect(await codeOf(rename({}))).toBe("ValidationFailure");
    expect(await codeOf(rename({ name: "c", colour: "red" }))).toBe("ValidationFailure");
    expect(await paths(w)).toEqual(["/a", "/a/inner", "/b"]);
    expect((await rename({ name: "a" })).folder.path).toBe("/a");
  });

  it("is refused unless every secret moved may be edited where it is and where it would be", async () => {
    const w = await freshProject(world);
    const { folder } = await w.sr.folders.create(w.admin, { ...where(w), name: "team" });
    await w.sr.folders.create(w.admin, { ...where(w, "/team"), name: "vault" });
    await w.sr.secrets.create(w.admin, { ...at(w, "dev", "/team/vault"), secretName: "ROOT_TOKEN", secretValue: "t" });
    const folders = { subject: "secret-folders", action: ["read", "edit"] };
    const rename = (as: Awaited<ReturnType<SecretsWorld["userWith"]>>, name: string) =>
      codeOf(w.sr.folders.update(as, { projectId: w.projectId, environment: "dev", folderId: folder.id, name }));

    // May edit secrets under /team only: moving them to /crew takes them out of its reach.
    const teamOnly = await w.userWith([await w.role("team-only", [folders, { subject: "secrets", action: ["read", "edit"], conditions: { secretPath: { $glob: "/team/**" } } }])]);
    expect(await rename(teamOnly, "crew")).toBe("PermissionDenied");
    // May not edit ROOT_TOKEN at all, wherever it is.
    const notRoot = await w.userWith([
      await w.role("not-root", [folders, { subject: "secrets", action: ["read", "edit"] }, { subject: "secrets", action: "edit", inverted: true, conditions: { secretName: "ROOT_TOKEN" } }]),
    ]);
    expect(await rename(notRoot, "crew")).toBe("PermissionDenied");
    // May not edit folders where the moved sub-folder would land.
    const noCrew = await w.userWith([
      await w.role("no-crew", [
        { subject: "secret-folders", action: ["read", "edit"] },
        { subject: "secret-folders", action: "edit", inverted: true, conditions: { secretPath: { $glob: "/crew/**" } } },
        { subject: "secrets", action: ["read", "edit"] },
      ]),
    ]);
    expect(await rename(noCrew, "crew")).toBe("PermissionDenied");
    expect(await paths(w)).toEqual(["/team", "/team/vault"]);

    // Allowed on both sides: the rename goes through.
    const both = await w.userWith([
      await w.role("both", [folders, { subject: "secrets", action: ["read", "edit"], conditions: { secretPath: { $in: ["/team/vault", "/crew/vault"] } } }]),
    ]);
    expect(await rename(both, "crew")).toBe("ok");
    expect(await paths(w)).toEqual(["/crew", "/crew/vault"]);
  });

  it("is refused when an import or a proxied service it moves may not be edited where it would be", async () => {
    const w = await freshProject(world);
    const { folder } = await w.sr.folders.create(w.admin, { ...where(w), name: "payments" });
    await w.sr.secrets.create(w.admin, { ...at(w, "dev", "/payments"), secretName: "STRIPE_KEY", secretValue: "sk" });
    await w.sr.proxiedServices.create(w.admin, {
      ...at(w, "dev", "/payments"),
      name: "stripe",
      hostPattern: "api.stripe.com",
      credentials: [{ headerName: "Authorization", headerPrefix: "Bearer", secretKey: "STRIPE_KEY" }],
    });
    const base = [{ subject: "secret-folders", action: ["read", "edit"] }, { subject: "secrets", action: ["read", "edit"] }];
    const servicesStay = await w.userWith([
      await w.role("services-stay", [...base, { subject: "proxied-services", action: ["read", "edit"], conditions: { secretPath: "/payments" } }]),
    ]);
    const rename = (as: Awaited<ReturnType<SecretsWorld["userWith"]>>, name: string) =>
      codeOf(w.sr.folders.update(as, { projectId: w.projectId, environment: "dev", folderId: folder.id, name }));
    expect(await rename(servicesStay, "billing")).toBe("PermissionDenied");

    await w.sr.folders.create(w.admin, { ...where(w, "/", "prod"), name: "shared" });
    await w.sr.secretImports.create(w.admin, { ...where(w, "/payments"), import: { environment: "prod", path: "/shared" } });
    const importsStay = await w.userWith([
      await w.role("imports-stay", [...base, { subject: "proxied-services", action: ["read", "edit"] }, { subject: "secret-imports", action: ["read", "edit"], conditions: { secretPath: "/payments" } }]),
    ]);
    expect(await rename(importsStay, "billing")).toBe("PermissionDenied");
    expect(await paths(w)).toEqual(["/payments"]);

    expect(await rename(w.admin as never, "billing")).toBe("ok");
    const { services } = await w.sr.proxiedServices.list(w.admin, { ...at(w, "dev", "/billing") });
    expect(services.map((s) => s.name)).toEqual(["stripe"]);
  });
});
