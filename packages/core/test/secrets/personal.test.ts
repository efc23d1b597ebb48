import { beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@strongroom/core";
import { at, secretsWorld, type SecretsWorld } from "./world.js";

describe("personal overrides", () => {
  let w: SecretsWorld;
  let alice: Actor;
  let bob: Actor;
  beforeEach(async () => {
    w = await secretsWorld();
    alice = await w.userWith(["member"], "alice@acme.test");
    bob = await w.userWith(["member"], "bob@acme.test");
    await w.sr.secrets.create(w.admin, { ...at(w), secretName: "DB_URL", secretValue: "shared-url" });
  });

  it("shadow the shared value for their owner only", async () => {
    const { secret } = await w.sr.secrets.create(alice, { ...at(w), secretName: "DB_URL", secretValue: "alice-url", type: "personal" });
    expect(secret).toMatchObject({ type: "personal", secretValue: "alice-url" });
    expect((await w.sr.secrets.get(alice, { ...at(w), secretName: "DB_URL" })).secret.secretValue).toBe("alice-url");
    expect((await w.sr.secrets.get(alice, { ...at(w), secretName: "DB_URL", type: "shared" })).secret.secretValue).toBe("shared-url");
    expect((await w.sr.secrets.get(bob, { ...at(w), secretName: "DB_URL" })).secret.secretValue).toBe("shared-url");
    await expect(w.sr.secrets.get(bob, { ...at(w), secretName: "DB_URL", type: "personal" })).rejects.toMatchObject({ code: "NotFound" });

    // Infisical's list: the override beside the shared secret (shared first, so setting variables in order ends with
    // the override); with includePersonalOverrides, the override in the shared secret's place.
    const aliceList = await w.sr.secrets.list(alice, at(w));
    expect(aliceList.secrets.map((s) => [s.secretKey, s.type, s.secretValue])).toEqual([
      ["DB_URL", "shared", "shared-url"],
      ["DB_URL", "personal", "alice-url"],
    ]);
    for (const flag of [{ includePersonalOverrides: true }, { include_personal_overrides: "true" }] as const) {
      const overridden = await w.sr.secrets.list(alice, { ...at(w), ...flag });
      expect(overridden.secrets.map((s) => [s.secretKey, s.type, s.secretValue])).toEqual([["DB_URL", "personal", "alice-url"]]);
    }
    const bobList = await w.sr.secrets.list(bob, at(w));
    expect(bobList.secrets.map((s) => [s.secretKey, s.type, s.secretValue])).toEqual([["DB_URL", "shared", "shared-url"]]);
  });

  it("need a shared secret of the same name, and go with it when it is deleted", async () => {
    await expect(w.sr.secrets.create(alice, { ...at(w), secretName: "NOPE", secretValue: "x", type: "personal" })).rejects.toMatchObject({ code: "BadRequest" });
    await w.sr.secrets.create(alice, { ...at(w), secretName: "DB_URL", secretValue: "alice-url", type: "personal" });
    await w.sr.secrets.update(alice, { ...at(w), secretName: "DB_URL", secretValue: "alice-2", type: "personal" });
    expect((await w.sr.secrets.get(w.admin, { ...at(w), secretName: "DB_URL" })).secret.secretValue).toBe("shared-url");
    await w.sr.secrets.delete(w.admin, { ...at(w), secretName: "DB_URL" });
    expect((await w.sr.secrets.list(alice, at(w))).secrets).toEqual([]);
  });

  it("in imports, show only with includePersonalOverrides, in the shared secret's place", async () => {
    await w.sr.secrets.create(w.admin, { ...at(w, "prod"), secretName: "API_URL", secretValue: "prod-api" });
    await w.sr.secretImports.create(w.admin, { projectId: w.projectId, environment: "dev", path: "/", import: { environment: "prod", path: "/" } });
    await w.sr.secrets.create(alice, { ...at(w, "prod"), secretName: "API_URL", secretValue: "alice-api", type: "personal" });
    const imported = async (flags: Record<string, unknown>) =>
      (await w.sr.secrets.list(alice, { ...at(w), includeImports: true, ...flags })).imports[0]!.secrets.map((s) => [s.type, s.secretValue]);
    expect(await imported({})).toEqual([["shared", "prod-api"]]);
    expect(await imported({ includePersonalOverrides: true })).toEqual([["personal", "alice-api"]]);
    expect((await w.sr.secrets.list(bob, { ...at(w), includeImports: true, includePersonalOverrides: true })).imports[0]!.secrets.map((s) => s.secretValue)).toEqual([
      "prod-api",
    ]);
  });
});
