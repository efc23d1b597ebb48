import { beforeEach, describe, expect, it } from "vitest";
import { at, secretsWorld, type SecretsWorld } from "./world.js";

describe("secret permissions", () => {
  let w: SecretsWorld;
  beforeEach(async () => {
    w = await secretsWorld();
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "public" });
    await w.sr.tags.create(w.admin, { projectId: w.projectId, slug: "pii" });
    const { workspaceTags } = await w.sr.tags.list(w.admin, { projectId: w.projectId });
    await w.sr.secrets.createMany(w.admin, {
      ...at(w),
      secrets: [
        { secretKey: "OPEN", secretValue: "open-value" },
        { secretKey: "CUSTOMER_SSN_KEY", secretValue: "pii-value", tagIds: [workspaceTags[0].id] },
      ],
    });
    await w.sr.secrets.create(w.admin, { ...at(w, "dev", "/public"), secretName: "BANNER", secretValue: "hello" });
  });

  it("a viewer reads everything and writes nothing", async () => {
    const viewer = await w.userWith(["viewer"]);
    const { secrets } = await w.sr.secrets.list(viewer, { ...at(w), recursive: true });
    expect(secrets.map((s) => [s.secretKey, s.secretValueHidden])).toEqual([
      ["CUSTOMER_SSN_KEY", false],
      ["OPEN", false],
      ["BANNER", false],
    ]);
    await expect(w.sr.secrets.update(viewer, { ...at(w), secretName: "OPEN", secretValue: "x" })).rejects.toMatchObject({ code: "PermissionDenied" });
    await expect(w.sr.secrets.create(viewer, { ...at(w), secretName: "NEW" })).rejects.toMatchObject({ code: "PermissionDenied" });
  });

  it("describe without readValue shows the secret with its value blanked", async () => {
    const describer = await w.userWith([await w.role("describer", [{ subject: "secrets", action: "describeSecret" }])]);
    const { secret } = await w.sr.secrets.get(describer, { ...at(w), secretName: "OPEN" });
    expect(secret).toMatchObject({ secretKey: "OPEN", secretValue: "", secretValueHidden: true });
  });

  it("conditions on path, name and tags filter the list instead of failing it", async () => {
    const scoped = await w.userWith([
      await w.role("scoped", [
        { subject: "secrets", action: "read", conditions: { environment: "dev", secretPath: { $glob: "/**" } } },
        { subject: "secrets", action: "read", inverted: true, conditions: { secretTags: { $in: ["pii"] } } },
        { subject: "secrets", action: "readValue", inverted: true, conditions: { secretPath: "/public" } },
      ]),
    ]);
    const { secrets } = await w.sr.secrets.list(scoped, { ...at(w), recursive: true });
    expect(secrets.map((s) => [s.secretKey, s.secretValue, s.secretValueHidden])).toEqual([
      ["OPEN", "open-value", false],
      ["BANNER", "", true],
    ]);
    await expect(w.sr.secrets.get(scoped, { ...at(w), secretName: "CUSTOMER_SSN_KEY" })).rejects.toMatchObject({ code: "PermissionDenied" });
    // Nothing in prod could ever be described: refused, whatever is there (DESIGN.md §11).
    await expect(w.sr.secrets.list(scoped, at(w, "prod"))).rejects.toMatchObject({ code: "PermissionDenied" });
  });

  it("checks write permissions against the secret's name", async () => {
    const appOnly = await w.userWith([
      await w.role("app-writer", [{ subject: "secrets", action: ["read", "create", "edit", "delete"], conditions: { secretName: { $glob: "APP_*" } } }]),
    ]);
    await w.sr.secrets.create(appOnly, { ...at(w), secretName: "APP_TOKEN", secretValue: "t" });
    await expect(w.sr.secrets.create(appOnly, { ...at(w), secretName: "DB_TOKEN", secretValue: "t" })).rejects.toMatchObject({ code: "PermissionDenied" });
    // Renaming out of the allowed names is an edit of the new name too.
    await expect(w.sr.secrets.update(appOnly, { ...at(w), secretName: "APP_TOKEN", newSecretName: "DB_TOKEN" })).rejects.toMatchObject({ code: "PermissionDenied" });
    await expect(w.sr.secrets.deleteMany(appOnly, { ...at(w), secrets: [{ secretKey: "APP_TOKEN" }, { secretKey: "OPEN" }] })).rejects.toMatchObject({
      code: "PermissionDenied",
    });
    expect((await w.sr.secrets.list(w.admin, at(w))).secrets.map((s) => s.secretKey)).toEqual(["APP_TOKEN", "CUSTOMER_SSN_KEY", "OPEN"]);
  });

  it("outsiders of the project get 403, unknown projects 404", async () => {
    const { user } = await w.sr.organizations.createUser(w.admin, { orgId: w.orgId, email: "outsider@acme.test", password: "a long enough password" });
    const outsider = { type: "user" as const, userId: user.id, tokenId: "t" };
    await expect(w.sr.secrets.list(outsider, at(w))).rejects.toMatchObject({ code: "PermissionDenied" });
    await expect(w.sr.secrets.list(w.admin, { ...at(w), projectId: "00000000-0000-0000-0000-000000000000" })).rejects.toMatchObject({ code: "NotFound" });
  });
});
