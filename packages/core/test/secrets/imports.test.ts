import { beforeEach, describe, expect, it } from "vitest";
import { at, secretsWorld, type SecretsWorld } from "./world.js";

describe("secret imports", () => {
  let w: SecretsWorld;
  beforeEach(async () => {
    w = await secretsWorld();
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "prod", name: "shared" });
    await w.sr.secrets.create(w.admin, { ...at(w, "prod", "/shared"), secretName: "SMTP_PASSWORD", secretValue: "mail-pass" });
    await w.sr.secrets.create(w.admin, { ...at(w, "dev"), secretName: "LOCAL", secretValue: "local" });
    await w.sr.secretImports.create(w.admin, { workspaceId: w.projectId, environment: "dev", path: "/", import: { environment: "prod", path: "/shared" } });
    w.events.length = 0;
  });

  it("lists imported secrets only when asked, under either spelling", async () => {
    const plain = await w.sr.secrets.list(w.admin, at(w));
    expect(plain.imports).toEqual([]);
    for (const flag of [{ include_imports: "true" }, { includeImports: true }] as const) {
      const { secrets, imports } = await w.sr.secrets.list(w.admin, { ...at(w), ...flag });
      expect(secrets.map((s) => s.secretKey)).toEqual(["LOCAL"]);
      expect(imports).toHaveLength(1);
      expect(imports[0]).toMatchObject({ environment: "prod", secretPath: "/shared" });
      expect(imports[0].secrets.map((s) => [s.secretKey, s.secretValue, s.environment])).toEqual([["SMTP_PASSWORD", "mail-pass", "prod"]]);
    }
  });

  it("a change to an imported secret raises secret:import-mutation for each importing folder", async () => {
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "staging", name: "svc" });
    await w.sr.secretImports.create(w.admin, { projectId: w.projectId, environment: "staging", path: "/svc", import: { environment: "prod", path: "/shared" } });
    await w.sr.secrets.update(w.admin, { ...at(w, "prod", "/shared"), secretName: "SMTP_PASSWORD", secretValue: "rotated" });
    expect(w.events.map((e) => [e.eventType, e.payload])).toEqual([
      ["secret:update", [{ environment: "prod", secretPath: "/shared", secretKey: "SMTP_PASSWORD" }]],
      ["secret:import-mutation", { environment: "dev", secretPath: "/" }],
      ["secret:import-mutation", { environment: "staging", secretPath: "/svc" }],
    ]);
    const { imports } = await w.sr.secrets.list(w.admin, { ...at(w), includeImports: true });
    expect(imports[0].secrets[0].secretValue).toBe("rotated");
  });

  it("get with includeImports falls back to the imports", async () => {
    await expect(w.sr.secrets.get(w.admin, { ...at(w), secretName: "SMTP_PASSWORD" })).rejects.toMatchObject({ code: "NotFound" });
    const { secret } = await w.sr.secrets.get(w.admin, { ...at(w), secretName: "SMTP_PASSWORD", includeImports: "true" });
    expect(secret).toMatchObject({ secretValue: "mail-pass", environment: "prod", secretPath: "/shared" });
  });

  it("filters imported secrets by the caller's permission on their own environment and path", async () => {
    const devOnly = await w.userWith([await w.role("dev-reader", [{ subject: "secrets", action: "read", conditions: { environment: "dev" } }])]);
    const { secrets, imports } = await w.sr.secrets.list(devOnly, { ...at(w), includeImports: true });
    expect(secrets.map((s) => s.secretKey)).toEqual(["LOCAL"]);
    expect(imports[0].secrets).toEqual([]);
  });

  it("refuses self-imports, duplicates and missing sources; lists and deletes imports", async () => {
    const self = { projectId: w.projectId, environment: "prod", path: "/shared", import: { environment: "prod", path: "/shared" } };
    await expect(w.sr.secretImports.create(w.admin, self)).rejects.toMatchObject({ code: "BadRequest" });
    const dup = { projectId: w.projectId, environment: "dev", path: "/", import: { environment: "prod", path: "/shared" } };
    await expect(w.sr.secretImports.create(w.admin, dup)).rejects.toMatchObject({ code: "BadRequest" });
    const missing = { projectId: w.projectId, environment: "dev", path: "/", import: { environment: "prod", path: "/nope" } };
    await expect(w.sr.secretImports.create(w.admin, missing)).rejects.toMatchObject({ code: "NotFound" });
    const { secretImports } = await w.sr.secretImports.list(w.admin, { projectId: w.projectId, environment: "dev", path: "/" });
    expect(secretImports).toMatchObject([{ importPath: "/shared", importEnv: { slug: "prod", name: "Production" }, position: 1 }]);
    await w.sr.secretImports.delete(w.admin, { projectId: w.projectId, secretImportId: secretImports[0].id });
    expect((await w.sr.secrets.list(w.admin, { ...at(w), includeImports: true })).imports).toEqual([]);
  });

  it("an import from a deleted environment shows nothing", async () => {
    const { project } = await w.sr.projects.get(w.admin, { projectId: w.projectId });
    const prod = project.environments.find((e) => e.slug === "prod")!;
    await w.sr.environments.delete(w.admin, { workspaceId: w.projectId, id: prod.id });
    expect((await w.sr.secrets.list(w.admin, { ...at(w), includeImports: true })).imports).toEqual([]);
  });

  it("a change reaches the importers of importers with secret:import-mutation, once each, through cycles", async () => {
    // dev imports prod:/shared (beforeEach); staging:/ imports dev:/, and prod:/shared imports staging:/ (a cycle).
    await w.sr.secretImports.create(w.admin, { projectId: w.projectId, environment: "staging", path: "/", import: { environment: "dev", path: "/" } });
    await w.sr.secretImports.create(w.admin, { projectId: w.projectId, environment: "prod", path: "/shared", import: { environment: "staging", path: "/" } });
    await w.sr.secrets.update(w.admin, { ...at(w, "prod", "/shared"), secretName: "SMTP_PASSWORD", secretValue: "rotated" });
    expect(w.events.filter((e) => e.eventType === "secret:import-mutation").map((e) => e.payload)).toEqual([
      { environment: "dev", secretPath: "/" },
      { environment: "staging", secretPath: "/" },
    ]);
  });
});

describe("imports of imports", () => {
  let w: SecretsWorld;
  const list = (environment: string, secretPath = "/", as = w.admin) => w.sr.secrets.list(as, { ...at(w, environment, secretPath), includeImports: true });
  const importInto = (environment: string, path: string, from: { environment: string; path: string }) =>
    w.sr.secretImports.create(w.admin, { projectId: w.projectId, environment, path, import: from });

  beforeEach(async () => {
    w = await secretsWorld();
    // dev ← staging ← prod: dev imports staging, which imports prod.
    await w.sr.secrets.create(w.admin, { ...at(w, "prod"), secretName: "DB_HOST", secretValue: "prod-db" });
    await w.sr.secrets.create(w.admin, { ...at(w, "prod"), secretName: "ONLY_PROD", secretValue: "p" });
    await w.sr.secrets.create(w.admin, { ...at(w, "staging"), secretName: "DB_HOST", secretValue: "staging-db" });
    await w.sr.secrets.create(w.admin, { ...at(w, "staging"), secretName: "ONLY_STAGING", secretValue: "s" });
    await w.sr.secrets.create(w.admin, { ...at(w, "dev"), secretName: "ONLY_DEV", secretValue: "d" });
    await importInto("dev", "/", { environment: "staging", path: "/" });
    await importInto("staging", "/", { environment: "prod", path: "/" });
  });

  it("lists an import with what its source imports, the nearest value of a name winning", async () => {
    const { secrets, imports } = await list("dev");
    expect(secrets.map((s) => s.secretKey)).toEqual(["ONLY_DEV"]);
    expect(imports).toHaveLength(1);
    expect(imports[0]).toMatchObject({ environment: "staging", secretPath: "/" });
    expect(imports[0].secrets.map((s) => [s.secretKey, s.secretValue, s.environment])).toEqual([
      ["DB_HOST", "staging-db", "staging"],
      ["ONLY_STAGING", "s", "staging"],
      ["ONLY_PROD", "p", "prod"],
    ]);
  });

  it("a single read with includeImports finds a secret two imports away, and the nearest of a shadowed name", async () => {
    const far = await w.sr.secrets.get(w.admin, { ...at(w), secretName: "ONLY_PROD", includeImports: true });
    expect(far.secret).toMatchObject({ secretValue: "p", environment: "prod", secretPath: "/" });
    const near = await w.sr.secrets.get(w.admin, { ...at(w), secretName: "DB_HOST", include_imports: "true" });
    expect(near.secret).toMatchObject({ secretValue: "staging-db", environment: "staging" });
  });

  it("stops at a cycle: nothing loops, and a folder never shows itself as imported", async () => {
    await importInto("prod", "/", { environment: "dev", path: "/" });
    const { imports } = await list("dev");
    expect(imports[0].secrets.map((s) => s.secretKey)).toEqual(["DB_HOST", "ONLY_STAGING", "ONLY_PROD"]);
    const fromProd = await list("prod");
    expect(fromProd.imports[0]).toMatchObject({ environment: "dev" });
    expect(fromProd.imports[0].secrets.map((s) => [s.secretKey, s.environment])).toEqual([
      ["ONLY_DEV", "dev"],
      ["DB_HOST", "staging"],
      ["ONLY_STAGING", "staging"],
    ]);
    await expect(w.sr.secrets.get(w.admin, { ...at(w), secretName: "NOWHERE", includeImports: true })).rejects.toMatchObject({ code: "NotFound" });
  });

  it("follows a chain ten imports deep and no deeper", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `l${i + 1}`);
    for (const name of names) {
      await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "prod", name });
      await w.sr.secrets.create(w.admin, { ...at(w, "prod", `/${name}`), secretName: `AT_${name.toUpperCase()}`, secretValue: name });
    }
    await importInto("dev", "/", { environment: "prod", path: "/l1" });
    for (let i = 1; i < names.length; i++) await importInto("prod", `/${names[i - 1]}`, { environment: "prod", path: `/${names[i]}` });
    const { imports } = await list("dev");
    const chain = imports.find((entry) => entry.secretPath === "/l1")!;
    expect(chain.secrets.map((s) => s.secretKey)).toEqual(names.slice(0, 10).map((n) => `AT_${n.toUpperCase()}`));
  });

  it("checks each imported secret against its own environment, however deep", async () => {
    const stagingReader = await w.userWith([
      await w.role("dev-and-staging", [{ subject: "secrets", action: "read", conditions: { environment: { $in: ["dev", "staging"] } } }]),
    ]);
    const { imports } = await list("dev", "/", stagingReader);
    expect(imports[0].secrets.map((s) => s.secretKey)).toEqual(["DB_HOST", "ONLY_STAGING"]);
    // ONLY_PROD lives only in prod, where it may describe nothing: the answer is the one for a name
    // found nowhere, so it does not tell that prod holds it (DESIGN.md §11, no existence oracles).
    await expect(w.sr.secrets.get(stagingReader, { ...at(w), secretName: "ONLY_PROD", includeImports: true })).rejects.toMatchObject({ code: "NotFound" });
    await expect(w.sr.secrets.get(stagingReader, { ...at(w), secretName: "NOWHERE", includeImports: true })).rejects.toMatchObject({ code: "NotFound" });
  });
});

describe("updating and removing imports", () => {
  let w: SecretsWorld;
  const dev = () => ({ projectId: w.projectId, environment: "dev", path: "/" });
  const positions = async () =>
    (await w.sr.secretImports.list(w.admin, dev())).secretImports.map((i) => [i.importPath, i.position]);

  beforeEach(async () => {
    w = await secretsWorld();
    for (const name of ["a", "b", "c", "d"]) {
      await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "prod", name });
      await w.sr.secrets.create(w.admin, { ...at(w, "prod", `/${name}`), secretName: "WHO", secretValue: name });
      await w.sr.secretImports.create(w.admin, { ...dev(), import: { environment: "prod", path: `/${name}` } });
    }
  });
  const idOf = async (path: string) => (await w.sr.secretImports.list(w.admin, dev())).secretImports.find((i) => i.importPath === path)!.id;
  const move = async (path: string, position: number) =>
    (await w.sr.secretImports.update(w.admin, { projectId: w.projectId, secretImportId: await idOf(path), import: { position } })).secretImport;

  it("moves an import to a position, the others shifting, and a single read follows the new order", async () => {
    expect(await positions()).toEqual([["/a", 1], ["/b", 2], ["/c", 3], ["/d", 4]]);
    expect((await move("/d", 1)).position).toBe(1);
    expect(await positions()).toEqual([["/d", 1], ["/a", 2], ["/b", 3], ["/c", 4]]);
    expect((await w.sr.secrets.get(w.admin, { ...at(w), secretName: "WHO", includeImports: true })).secret.secretValue).toBe("d");
    await move("/d", 3);
    expect(await positions()).toEqual([["/a", 1], ["/b", 2], ["/d", 3], ["/c", 4]]);
    expect((await move("/a", 99)).position).toBe(4);
    expect(await positions()).toEqual([["/b", 1], ["/d", 2], ["/c", 3], ["/a", 4]]);
  });

  it("renumbers the positions after a delete", async () => {
    await w.sr.secretImports.delete(w.admin, { projectId: w.projectId, secretImportId: await idOf("/b") });
    expect(await positions()).toEqual([["/a", 1], ["/c", 2], ["/d", 3]]);
    await w.sr.secretImports.delete(w.admin, { projectId: w.projectId, secretImportId: await idOf("/a") });
    expect(await positions()).toEqual([["/c", 1], ["/d", 2]]);
  });

  it("changes an import's source, refusing a duplicate, itself, a missing folder and another folder's name for it", async () => {
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "staging", name: "e" });
    const id = await idOf("/a");
    const change = (body: Record<string, unknown>) => w.sr.secretImports.update(w.admin, { projectId: w.projectId, secretImportId: id, ...body } as never);
    const { secretImport } = await change({ import: { environment: "staging", path: "/e" } });
    expect(secretImport).toMatchObject({ importPath: "/e", importEnv: { slug: "staging" }, position: 1 });
    await expect(change({ import: { environment: "prod", path: "/b" } })).rejects.toMatchObject({ code: "BadRequest" });
    await expect(change({ import: { environment: "dev", path: "/" } })).rejects.toMatchObject({ code: "BadRequest" });
    await expect(change({ import: { environment: "prod", path: "/nope" } })).rejects.toMatchObject({ code: "NotFound" });
    await expect(change({ import: { environment: "nope" } })).rejects.toMatchObject({ code: "NotFound" });
    await expect(change({ environment: "staging", import: { position: 2 } })).rejects.toMatchObject({ code: "NotFound" });
    await expect(change({ import: {} })).rejects.toMatchObject({ code: "ValidationFailure" });
    await expect(change({ import: { position: 0 } })).rejects.toMatchObject({ code: "ValidationFailure" });
    await expect(change({ import: { position: 2 }, extra: true })).rejects.toMatchObject({ code: "ValidationFailure" });
    expect((await change({ environment: "dev", path: "/", import: { path: "/e", position: 2 } })).secretImport).toMatchObject({ importPath: "/e", position: 2 });
  });

  it("takes edit on secret-imports at the importing folder", async () => {
    const reader = await w.userWith(["viewer"]);
    await expect(w.sr.secretImports.update(reader, { projectId: w.projectId, secretImportId: await idOf("/a"), import: { position: 2 } })).rejects.toMatchObject({
      code: "PermissionDenied",
    });
    await expect(w.sr.secretImports.delete(reader, { projectId: w.projectId, secretImportId: await idOf("/a") })).rejects.toMatchObject({ code: "PermissionDenied" });
    expect(await positions()).toEqual([["/a", 1], ["/b", 2], ["/c", 3], ["/d", 4]]);
  });
});
