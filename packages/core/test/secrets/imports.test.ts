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
});
