import { StrongroomError } from "@strongroom/core";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { failingStorage } from "./failing-storage.js";
import { at, freshProject, type SecretsWorld } from "./world.js";

async function rejection(promise: Promise<unknown>): Promise<StrongroomError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof StrongroomError)) throw new Error(`expected a StrongroomError, got ${String(error)}`);
  return error;
}

async function values(w: SecretsWorld, secretPath = "/") {
  const { secrets } = await w.sr.secrets.list(w.admin, at(w, "dev", secretPath));
  return Object.fromEntries(secrets.map((s) => [s.secretKey, { value: s.secretValue, version: s.version }]));
}

forEachStore("the secret batch", (store) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld({ storage: await store.open() });
  });
  afterAll(() => world?.close());

  describe("PATCH /api/v4/secrets/batch semantics", () => {
    let w: SecretsWorld;
    beforeEach(async () => {
      w = await freshProject(world);
      await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "app" });
      await w.sr.secrets.createMany(w.admin, {
        ...at(w),
        secrets: [
          { secretKey: "A", secretValue: "a1" },
          { secretKey: "B", secretValue: "b1" },
          { secretKey: "NESTED", secretValue: "n1", secretPath: "/app" },
        ],
      });
      w.events.length = 0;
    });

    it("fails on not found by default: 404 naming every missing key, and nothing changes", async () => {
      const error = await rejection(
        w.sr.secrets.updateMany(w.admin, {
          ...at(w),
          secrets: [
            { secretKey: "A", secretValue: "a2" },
            { secretKey: "MISSING_ONE", secretValue: "x" },
            { secretKey: "MISSING_TWO", secretValue: "y", secretPath: "/app" },
          ],
        }),
      );
      expect(error.code).toBe("NotFound");
      expect(error.message).toContain("MISSING_ONE");
      expect(error.message).toContain("/app:MISSING_TWO");
      expect(await values(w)).toEqual({ A: { value: "a1", version: 1 }, B: { value: "b1", version: 1 } });
      expect(w.events).toEqual([]);
    });

    it("ignore skips missing keys and updates the rest", async () => {
      const { secrets } = await w.sr.secrets.updateMany(w.admin, {
        ...at(w),
        mode: "ignore",
        secrets: [
          { secretKey: "A", secretValue: "a2" },
          { secretKey: "GHOST", secretValue: "x" },
        ],
      });
      expect(secrets.map((s) => [s.secretKey, s.secretValue, s.version])).toEqual([["A", "a2", 2]]);
      expect(await values(w)).toEqual({ A: { value: "a2", version: 2 }, B: { value: "b1", version: 1 } });
    });

    it("upsert creates missing keys at version 1 and raises create and update events per folder", async () => {
      const { secrets } = await w.sr.secrets.updateMany(w.admin, {
        ...at(w),
        mode: "upsert",
        secrets: [
          { secretKey: "A", secretValue: "a2" },
          { secretKey: "B", secretValue: "b2" },
          { secretKey: "NEW", secretValue: "new" },
          { secretKey: "NESTED", secretValue: "n2", secretPath: "/app" },
        ],
      });
      expect(secrets.map((s) => [s.secretKey, s.secretPath, s.version])).toEqual([
        ["A", "/", 2],
        ["B", "/", 2],
        ["NEW", "/", 1],
        ["NESTED", "/app", 2],
      ]);
      const summary = w.events.map((e) => [e.eventType, e.payload]);
      expect(summary).toEqual([
        [
          "secret:update",
          [
            { environment: "dev", secretPath: "/", secretKey: "A" },
            { environment: "dev", secretPath: "/", secretKey: "B" },
          ],
        ],
        ["secret:update", [{ environment: "dev", secretPath: "/app", secretKey: "NESTED" }]],
        ["secret:create", [{ environment: "dev", secretPath: "/", secretKey: "NEW" }]],
      ]);
    });

    it("upsert checks the create permission: an editor who may not create changes nothing", async () => {
      const editor = await w.userWith([await w.role("editor", [{ subject: "secrets", action: ["read", "edit"] }])]);
      const error = await rejection(
        w.sr.secrets.updateMany(editor, {
          ...at(w),
          mode: "upsert",
          secrets: [
            { secretKey: "A", secretValue: "a2" },
            { secretKey: "NEW", secretValue: "new" },
          ],
        }),
      );
      expect(error.code).toBe("PermissionDenied");
      expect(await values(w)).toEqual({ A: { value: "a1", version: 1 }, B: { value: "b1", version: 1 } });
    });

    it("renames with newSecretName; renaming onto an existing name is 400", async () => {
      await w.sr.secrets.updateMany(w.admin, { ...at(w), secrets: [{ secretKey: "A", newSecretName: "RENAMED" }] });
      expect(await values(w)).toEqual({ RENAMED: { value: "a1", version: 2 }, B: { value: "b1", version: 1 } });
      await expect(w.sr.secrets.get(w.admin, { ...at(w), secretName: "A" })).rejects.toMatchObject({ code: "NotFound" });

      const onto = await rejection(w.sr.secrets.updateMany(w.admin, { ...at(w), secrets: [{ secretKey: "RENAMED", newSecretName: "B" }] }));
      expect(onto.code).toBe("BadRequest");
      const twice = await rejection(
        w.sr.secrets.updateMany(w.admin, {
          ...at(w),
          secrets: [
            { secretKey: "RENAMED", newSecretName: "SAME" },
            { secretKey: "B", newSecretName: "SAME" },
          ],
        }),
      );
      expect(twice.code).toBe("BadRequest");
      expect(await values(w)).toEqual({ RENAMED: { value: "a1", version: 2 }, B: { value: "b1", version: 1 } });
    });

    it("a batch naming one secret twice is 400, naming each repeat once; one name in two folders is no repeat", async () => {
      // Long enough to be rehearsed outside the transaction, as big batches are.
      const many = Array.from({ length: 40 }, (_, i) => ({ secretKey: `K${i}`, secretValue: "v" }));
      const repeats = [...many, { secretKey: "K3", secretValue: "w" }, { secretKey: "K3", secretValue: "x" }, { secretKey: "K7", secretValue: "y" }];
      const update = await rejection(w.sr.secrets.updateMany(w.admin, { ...at(w), mode: "upsert", secrets: repeats }));
      expect(update.code).toBe("BadRequest");
      expect(update.message).toBe("The batch names these secrets more than once: K3, K7");
      const create = await rejection(w.sr.secrets.createMany(w.admin, { ...at(w), secrets: [...many, { secretKey: "K1", secretPath: "/app" }, { secretKey: "K1", secretPath: "/app/" }] }));
      expect(create.message).toBe("The batch names these secrets more than once: /app:K1");
      const removal = await rejection(w.sr.secrets.deleteMany(w.admin, { ...at(w), secrets: [{ secretKey: "A" }, { secretKey: "A" }] }));
      expect(removal.message).toBe("The batch names these secrets more than once: A");
      expect(await values(w)).toEqual({ A: { value: "a1", version: 1 }, B: { value: "b1", version: 1 } });

      await w.sr.secrets.updateMany(w.admin, { ...at(w), mode: "upsert", secrets: [...many, { secretKey: "K1", secretValue: "in app", secretPath: "/app" }] });
      expect((await values(w, "/app")).K1).toEqual({ value: "in app", version: 1 });
    });

    it("a missing folder is 404", async () => {
      const error = await rejection(w.sr.secrets.updateMany(w.admin, { ...at(w), secrets: [{ secretKey: "A", secretValue: "x", secretPath: "/nope" }] }));
      expect(error.code).toBe("NotFound");
      expect(error.message).toContain("/nope");
    });

    it("per-item secretPath overrides the top-level default", async () => {
      await w.sr.secrets.updateMany(w.admin, {
        ...at(w, "dev", "/app"),
        secrets: [{ secretKey: "NESTED", secretValue: "n2" }, { secretKey: "A", secretValue: "a2", secretPath: "/" }],
      });
      expect((await values(w, "/app")).NESTED.value).toBe("n2");
      expect((await values(w)).A.value).toBe("a2");
    });

    it("sets every field: comment, reminder, tags, metadata, multiline flag", async () => {
      const { workspaceTag } = await w.sr.tags.create(w.admin, { projectId: w.projectId, slug: "billing", color: "#ff0000" });
      const { secrets } = await w.sr.secrets.updateMany(w.admin, {
        ...at(w),
        secrets: [
          {
            secretKey: "A",
            secretComment: "rotated by ops",
            secretReminderNote: "rotate quarterly",
            secretReminderRepeatDays: 90,
            skipMultilineEncoding: true,
            tagIds: [workspaceTag.id],
            secretMetadata: [{ key: "owner", value: "team-a" }, { key: "pin", value: "1234", isEncrypted: true }],
          },
        ],
      });
      expect(secrets[0]).toMatchObject({
        secretKey: "A",
        secretValue: "a1",
        secretComment: "rotated by ops",
        secretReminderNote: "rotate quarterly",
        secretReminderRepeatDays: 90,
        skipMultilineEncoding: true,
        tags: [{ id: workspaceTag.id, slug: "billing", name: "billing", color: "#ff0000" }],
        secretMetadata: [
          { key: "owner", value: "team-a", isEncrypted: false },
          { key: "pin", value: "1234", isEncrypted: true },
        ],
        version: 2,
        actor: { actorType: "identity" },
      });
      const row = (await w.storage.tables.secrets.find({ projectId: w.projectId })).find((r) => r.id === secrets[0].id)!;
      expect(row.metadata[0]).toEqual({ key: "owner", value: "team-a", isEncrypted: false });
      expect(row.metadata[1].value).not.toContain("1234");
    });

    it("an unknown tag id is 404", async () => {
      const error = await rejection(w.sr.secrets.updateMany(w.admin, { ...at(w), secrets: [{ secretKey: "A", tagIds: ["no-such-tag"] }] }));
      expect(error.code).toBe("NotFound");
      expect(error.message).toContain("no-such-tag");
    });

    it("keeps every version; an update that changes nothing writes none and raises no event", async () => {
      await w.sr.secrets.updateMany(w.admin, { ...at(w), secrets: [{ secretKey: "A", secretValue: "a2" }] });
      const { secrets } = await w.sr.secrets.updateMany(w.admin, { ...at(w), secrets: [{ secretKey: "A", secretValue: "a2" }] });
      expect(secrets[0].version).toBe(2);
      expect(w.events).toHaveLength(1);
      const first = await w.sr.secrets.get(w.admin, { ...at(w), secretName: "A", version: 1 });
      expect(first.secret).toMatchObject({ secretValue: "a1", version: 1 });
      // Version 1 is filed; version 2 is the secret itself.
      expect(await w.storage.tables.secretVersions.count({ secretId: secrets[0].id })).toBe(1);
    });

    it("repeating a key in one batch is 400", async () => {
      const error = await rejection(
        w.sr.secrets.updateMany(w.admin, { ...at(w), secrets: [{ secretKey: "A", secretValue: "1" }, { secretKey: "A", secretValue: "2" }] }),
      );
      expect(error.code).toBe("BadRequest");
    });
  });

  describe("all or nothing", () => {
    it("a storage failure in the middle of a batch leaves every secret as it was and publishes nothing", async () => {
      const storage = failingStorage(await store.open());
      const w = await createTestWorld({ storage });
      onTestFinished(() => w.close());
      await w.sr.secrets.createMany(w.admin, { ...at(w), secrets: [{ secretKey: "A", secretValue: "a1" }, { secretKey: "B", secretValue: "b1" }] });
      w.events.length = 0;
      // Writes of this upsert: update A and B (one statement), file their old versions, insert C.
      for (const nth of [2, 3]) {
        storage.failOnWrite(nth);
        await expect(
          w.sr.secrets.updateMany(w.admin, {
            ...at(w),
            mode: "upsert",
            secrets: [
              { secretKey: "A", secretValue: "a2" },
              { secretKey: "B", secretValue: "b2" },
              { secretKey: "C", secretValue: "c1" },
            ],
          }),
        ).rejects.toThrow("injected storage failure");
        storage.failOnWrite(0);
        expect(await values(w)).toEqual({ A: { value: "a1", version: 1 }, B: { value: "b1", version: 1 } });
        expect(await storage.tables.secretVersions.count({ projectId: w.projectId })).toBe(0);
        expect(w.events).toEqual([]);
      }
    });

    it("reads made while a batch is written find every secret as it was or every one as the batch left it", async () => {
      const w = await freshProject(world);
      const size = 1_000;
      const keys = Array.from({ length: size }, (_, i) => `K_${i}`);
      await w.sr.secrets.createMany(w.admin, { ...at(w), secrets: keys.map((secretKey) => ({ secretKey, secretValue: "before" })) });
      let written = false;
      const batch = w.sr.secrets.updateMany(w.admin, { ...at(w), secrets: keys.map((secretKey) => ({ secretKey, secretValue: "after" })) }).finally(() => {
        written = true;
      });
      do {
        const found = Object.values(await values(w)).map((s) => s.value);
        expect(found).toHaveLength(size);
        expect(new Set(found).size, "one read found both old and new values").toBe(1);
        await new Promise((resolve) => setImmediate(resolve));
      } while (!written);
      await batch;
      expect(new Set(Object.values(await values(w)).map((s) => s.value))).toEqual(new Set(["after"]));
    });

    it("a batch delete with one missing key deletes nothing", async () => {
      const w = await freshProject(world);
      await w.sr.secrets.createMany(w.admin, { ...at(w), secrets: [{ secretKey: "A", secretValue: "a1" }] });
      const error = await rejection(w.sr.secrets.deleteMany(w.admin, { ...at(w), secrets: [{ secretKey: "A" }, { secretKey: "NOPE" }] }));
      expect(error.code).toBe("NotFound");
      expect(error.message).toContain("NOPE");
      expect(Object.keys(await values(w))).toEqual(["A"]);
      const { secrets } = await w.sr.secrets.deleteMany(w.admin, { ...at(w), secrets: [{ secretKey: "A" }] });
      expect(secrets.map((s) => s.secretKey)).toEqual(["A"]);
      expect(await values(w)).toEqual({});
    });

    it("a batch create with one existing name creates nothing", async () => {
      const w = await freshProject(world);
      await w.sr.secrets.create(w.admin, { ...at(w), secretName: "TAKEN", secretValue: "x" });
      const error = await rejection(
        w.sr.secrets.createMany(w.admin, { ...at(w), secrets: [{ secretKey: "FRESH", secretValue: "1" }, { secretKey: "TAKEN", secretValue: "2" }] }),
      );
      expect(error.code).toBe("BadRequest");
      expect(error.message).toContain("TAKEN");
      expect(Object.keys(await values(w))).toEqual(["TAKEN"]);
    });
  });
});
