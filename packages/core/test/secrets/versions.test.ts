import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { at, freshProject, type SecretsWorld } from "./world.js";

/**
 * A secret's history by id on every store: versions newest first with the current one, and a
 * rollback that brings an earlier value, comment and metadata back as a new version while the
 * name and tags stay. History is the secret: rights must hold as it is now and as it was.
 */
forEachStore("secret versions", (store) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld({ storage: await store.open() });
  });
  afterAll(() => world?.close());

  const codeOf = (attempt: Promise<unknown>) => attempt.then(() => "ok", (error: { code?: string }) => error.code ?? String(error));

  /** STRIPE_KEY written three times: v1 with a comment and metadata, v2 new value and tag, v3 renamed. */
  async function history(w: SecretsWorld) {
    const { workspaceTag: tag } = await w.sr.tags.create(w.admin, { projectId: w.projectId, slug: "billing", name: "Billing", color: "#00ff00" });
    const { secret } = await w.sr.secrets.create(w.admin, {
      ...at(w),
      secretName: "STRIPE_KEY",
      secretValue: "sk_one",
      secretComment: "first key",
      secretMetadata: [{ key: "owner", value: "payments", isEncrypted: false }],
    });
    await w.sr.secrets.update(w.admin, { ...at(w), secretName: "STRIPE_KEY", secretValue: "sk_two", secretComment: "second key", secretMetadata: [], tagIds: [tag.id] });
    await w.sr.secrets.update(w.admin, { ...at(w), secretName: "STRIPE_KEY", newSecretName: "STRIPE_SECRET" });
    return { id: secret.id, tagId: tag.id };
  }

  it("lists versions newest first, the current one included, a page at a time", async () => {
    const w = await freshProject(world);
    const { id } = await history(w);
    const { secretVersions } = await w.sr.secrets.listVersions(w.admin, { secretId: id });
    expect(secretVersions.map((v) => [v.version, v.secretKey, v.secretValue, v.secretComment])).toEqual([
      [3, "STRIPE_SECRET", "sk_two", "second key"],
      [2, "STRIPE_KEY", "sk_two", "second key"],
      [1, "STRIPE_KEY", "sk_one", "first key"],
    ]);
    expect(secretVersions.every((v) => v.id === id)).toBe(true);
    expect(secretVersions[2]!.secretMetadata).toEqual([{ key: "owner", value: "payments", isEncrypted: false }]);
    const page = async (offset: number, limit: number) => (await w.sr.secrets.listVersions(w.admin, { secretId: id, offset, limit })).secretVersions.map((v) => v.version);
    expect(await page(0, 1)).toEqual([3]);
    expect(await page(1, 1)).toEqual([2]);
    expect(await page(1, 5)).toEqual([2, 1]);
    expect(await page(3, 5)).toEqual([]);
    expect(await codeOf(w.sr.secrets.listVersions(w.admin, { secretId: id, limit: 0 }))).toBe("ValidationFailure");
    expect(await codeOf(w.sr.secrets.listVersions(w.admin, { secretId: "00000000-0000-4000-8000-000000000000" }))).toBe("NotFound");
  });

  it("rolls back value, comment and metadata as a new version; name and tags stay", async () => {
    const w = await freshProject(world);
    const { id, tagId } = await history(w);
    w.events.length = 0;
    const { secret } = await w.sr.secrets.rollback(w.admin, { secretId: id, version: 1 });
    expect(secret).toMatchObject({ id, version: 4, secretKey: "STRIPE_SECRET", secretValue: "sk_one", secretComment: "first key" });
    expect(secret.secretMetadata).toEqual([{ key: "owner", value: "payments", isEncrypted: false }]);
    expect(secret.tags.map((t) => t.id)).toEqual([tagId]);
    expect(w.events.map((e) => [e.eventType, e.payload])).toEqual([["secret:update", [{ environment: "dev", secretPath: "/", secretKey: "STRIPE_SECRET" }]]]);
    const read = await w.sr.secrets.get(w.admin, { ...at(w), secretName: "STRIPE_SECRET" });
    expect(read.secret).toMatchObject({ secretValue: "sk_one", version: 4 });
    // The state it replaced is history now; rolling back to the current version changes nothing.
    expect((await w.sr.secrets.listVersions(w.admin, { secretId: id, limit: 2 })).secretVersions.map((v) => [v.version, v.secretValue])).toEqual([
      [4, "sk_one"],
      [3, "sk_two"],
    ]);
    expect((await w.sr.secrets.rollback(w.admin, { secretId: id, version: 4 })).secret.version).toBe(4);
    expect(await codeOf(w.sr.secrets.rollback(w.admin, { secretId: id, version: 9 }))).toBe("NotFound");
    expect(await codeOf(w.sr.secrets.rollback(w.admin, { secretId: id, version: 0 }))).toBe("ValidationFailure");
  });

  it("shows and restores a version only to who may read the secret as it is and as it was", async () => {
    const w = await freshProject(world);
    // ADMIN_TOKEN's value was written under a name the reader may not read, then renamed to one it may.
    const { secret } = await w.sr.secrets.create(w.admin, { ...at(w), secretName: "ADMIN_TOKEN", secretValue: "root-power" });
    await w.sr.secrets.update(w.admin, { ...at(w), secretName: "ADMIN_TOKEN", secretValue: "harmless" });
    await w.sr.secrets.update(w.admin, { ...at(w), secretName: "ADMIN_TOKEN", newSecretName: "PUBLIC_TOKEN" });
    const publicOnly = await w.userWith([
      await w.role("public-only", [
        { subject: "secrets", action: ["describeSecret", "readValue", "edit"], conditions: { secretName: { $glob: "PUBLIC_*" } } },
        { subject: "secrets", action: ["describeSecret"] },
      ]),
    ]);
    const { secretVersions } = await w.sr.secrets.listVersions(publicOnly, { secretId: secret.id });
    expect(secretVersions.map((v) => [v.version, v.secretKey, v.secretValue, v.secretValueHidden])).toEqual([
      [3, "PUBLIC_TOKEN", "harmless", false],
      [2, "ADMIN_TOKEN", "", true],
      [1, "ADMIN_TOKEN", "", true],
    ]);
    expect(await codeOf(w.sr.secrets.rollback(publicOnly, { secretId: secret.id, version: 1 }))).toBe("PermissionDenied");
    expect((await w.sr.secrets.get(w.admin, { ...at(w), secretName: "PUBLIC_TOKEN" })).secret).toMatchObject({ secretValue: "harmless", version: 3 });

    const viewer = await w.userWith(["viewer"]);
    expect((await w.sr.secrets.listVersions(viewer, { secretId: secret.id })).secretVersions).toHaveLength(3);
    expect(await codeOf(w.sr.secrets.rollback(viewer, { secretId: secret.id, version: 1 }))).toBe("PermissionDenied");
    const blind = await w.userWith([await w.role("no-secrets", [{ subject: "secret-folders", action: "read" }])]);
    expect(await codeOf(w.sr.secrets.listVersions(blind, { secretId: secret.id }))).toBe("PermissionDenied");
  });

  it("keeps personal overrides to their owner", async () => {
    const w = await freshProject(world);
    await w.sr.secrets.create(w.admin, { ...at(w), secretName: "DB_URL", secretValue: "shared" });
    const alice = await w.userWith(["member"]);
    const bob = await w.userWith(["member"]);
    const { secret } = await w.sr.secrets.create(alice, { ...at(w), secretName: "DB_URL", secretValue: "alice-1", type: "personal" });
    await w.sr.secrets.update(alice, { ...at(w), secretName: "DB_URL", secretValue: "alice-2", type: "personal" });
    expect((await w.sr.secrets.listVersions(alice, { secretId: secret.id })).secretVersions.map((v) => v.secretValue)).toEqual(["alice-2", "alice-1"]);
    expect(await codeOf(w.sr.secrets.listVersions(bob, { secretId: secret.id }))).toBe("NotFound");
    expect(await codeOf(w.sr.secrets.rollback(bob, { secretId: secret.id, version: 1 }))).toBe("NotFound");
    expect((await w.sr.secrets.rollback(alice, { secretId: secret.id, version: 1 })).secret).toMatchObject({ secretValue: "alice-1", type: "personal", version: 3 });
    expect((await w.sr.secrets.get(w.admin, { ...at(w), secretName: "DB_URL" })).secret.secretValue).toBe("shared");
  });
});
