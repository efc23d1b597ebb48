import { StrongroomError } from "@strongroom/core";
import type { Storage, StrongroomSchema } from "@strongroom/core/storage";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { at, freshProject, type SecretsWorld } from "./world.js";

type AppStorage = Storage<StrongroomSchema>;

/**
 * A storage that runs `meddle` (once) just before the next transaction begins: for a big batch,
 * after it was prepared outside its transaction and before that transaction re-reads what it
 * found — the moment a concurrent request may change things under it.
 */
function meddlingStorage(inner: AppStorage): AppStorage & { beforeNextTransaction(meddle: () => Promise<unknown>): void } {
  let meddle: (() => Promise<unknown>) | undefined;
  const storage: AppStorage = {
    kind: inner.kind,
    schema: inner.schema,
    inTransaction: inner.inTransaction,
    tables: inner.tables,
    async transaction(fn) {
      const pending = meddle;
      meddle = undefined;
      if (pending) await pending();
      return inner.transaction(fn);
    },
    close: () => inner.close(),
  };
  return Object.assign(storage, {
    beforeNextTransaction(fn: () => Promise<unknown>) {
      meddle = fn;
    },
  });
}

/** Big enough to be prepared outside the transaction (REHEARSAL_MIN_ITEMS). */
const SIZE = 64;
const names = Array.from({ length: SIZE }, (_, i) => `KEY_${i}`);

async function rejection(promise: Promise<unknown>): Promise<StrongroomError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof StrongroomError)) throw new Error(`expected a StrongroomError, got ${String(error)}`);
  return error;
}

forEachStore("a big batch prepared outside its transaction", (store) => {
  let world: TestWorld;
  let storage: ReturnType<typeof meddlingStorage>;
  beforeAll(async () => {
    storage = meddlingStorage((await store.open()) as AppStorage);
    // No audit log: its flushes open transactions of their own, which could take the meddling
    // meant for the batch's (and race it instead of preceding it).
    world = await createTestWorld({ storage, audit: false });
  });
  afterAll(() => world?.close());

  let w: SecretsWorld;
  beforeEach(async () => {
    w = await freshProject(world);
    await w.sr.secrets.createMany(w.admin, { ...at(w), secrets: names.map((secretKey) => ({ secretKey, secretValue: "v1" })) });
  });

  const listed = async () => {
    const { secrets } = await w.sr.secrets.list(w.admin, at(w));
    return new Map(secrets.map((s) => [s.secretKey, s]));
  };
  const batch = (mode: "upsert" | "failOnNotFound", keys: readonly string[], value: string) =>
    w.sr.secrets.updateMany(w.admin, { ...at(w), mode, secrets: keys.map((secretKey) => ({ secretKey, secretValue: value })) });

  it("writes the batch when nothing changed meanwhile, and announces it once written", async () => {
    w.events.length = 0;
    const { secrets } = await batch("upsert", [...names, "NEW_ONE"], "v2");
    const mine = w.events.filter((e) => e.projectId === w.projectId);
    expect(mine.map((e) => [e.eventType, (e.payload as unknown[]).length])).toEqual([
      ["secret:update", SIZE],
      ["secret:create", 1],
    ]);
    expect(secrets).toHaveLength(SIZE + 1);
    const now = await listed();
    expect([...now.values()].every((s) => s.secretValue === "v2")).toBe(true);
    expect(now.get("KEY_0")!.version).toBe(2);
    expect(now.get("NEW_ONE")!.version).toBe(1);
  });

  it("builds on a change another request made meanwhile, losing neither", async () => {
    storage.beforeNextTransaction(() => w.sr.secrets.update(w.admin, { ...at(w), secretName: "KEY_7", secretValue: "concurrent" }));
    await batch("upsert", names, "v2");
    const secret = (await listed()).get("KEY_7")!;
    expect(secret).toMatchObject({ secretValue: "v2", version: 3 });
    const { secretVersions } = await w.sr.secrets.listVersions(w.admin, { secretId: secret.id, offset: 0, limit: 10 });
    expect(secretVersions.map((v) => v.secretValue)).toEqual(["v2", "concurrent", "v1"]);
  });

  it("updates a secret another request created meanwhile instead of creating it twice", async () => {
    storage.beforeNextTransaction(() => w.sr.secrets.create(w.admin, { ...at(w), secretName: "LATE", secretValue: "first" }));
    await batch("upsert", [...names, "LATE"], "v2");
    expect((await listed()).get("LATE")).toMatchObject({ secretValue: "v2", version: 2 });
  });

  it("answers what the database holds at the write, not what it held while preparing", async () => {
    // Missing while the batch was prepared, there when it is written: the batch succeeds.
    storage.beforeNextTransaction(() => w.sr.secrets.create(w.admin, { ...at(w), secretName: "LATE", secretValue: "first" }));
    await batch("failOnNotFound", [...names, "LATE"], "v2");
    expect((await listed()).get("LATE")).toMatchObject({ secretValue: "v2", version: 2 });

    // There while it was prepared, gone when it is written: 404 and nothing changes.
    storage.beforeNextTransaction(() => w.sr.secrets.delete(w.admin, { ...at(w), secretName: "KEY_3" }));
    expect((await rejection(batch("failOnNotFound", names, "v3"))).code).toBe("NotFound");
    const now = await listed();
    expect(now.has("KEY_3")).toBe(false);
    expect([...now.values()].every((s) => s.secretValue === "v2")).toBe(true);
  });

  it("refuses as it would have refused inside the transaction, writing nothing", async () => {
    w.events.length = 0;
    expect((await rejection(batch("failOnNotFound", [...names, "MISSING"], "v2"))).code).toBe("NotFound");
    expect([...(await listed()).values()].every((s) => s.secretValue === "v1" && s.version === 1)).toBe(true);
    expect(w.events.filter((e) => e.projectId === w.projectId)).toEqual([]);
  });

  it("renames a batch of secrets (a check that reads another area's state runs in the transaction)", async () => {
    await w.sr.secrets.updateMany(w.admin, { ...at(w), mode: "failOnNotFound", secrets: names.map((secretKey) => ({ secretKey, newSecretName: `RENAMED_${secretKey}` })) });
    const now = await listed();
    expect(names.every((name) => !now.has(name) && now.get(`RENAMED_${name}`)?.version === 2)).toBe(true);
  });

  it("refuses a folder that went away meanwhile", async () => {
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "app" });
    storage.beforeNextTransaction(() => w.sr.folders.delete(w.admin, { projectId: w.projectId, environment: "dev", folderIdOrName: "app" }));
    const refused = await rejection(w.sr.secrets.createMany(w.admin, { ...at(w, "dev", "/app"), secrets: names.map((secretKey) => ({ secretKey, secretValue: "x" })) }));
    expect(refused.code).toBe("NotFound");
  });

  describe("permission checks decided once per folder where only the folder can matter", () => {
    it("still checks each secret when a rule looks at names", async () => {
      const appOnly = await w.userWith([
        await w.role("app-writer", [{ subject: "secrets", action: ["read", "create", "edit", "delete"], conditions: { secretName: { $glob: "KEY_*" } } }]),
      ]);
      const keys = [...names.slice(0, SIZE - 1), "OTHER"];
      const refused = await rejection(w.sr.secrets.updateMany(appOnly, { ...at(w), mode: "upsert", secrets: keys.map((secretKey) => ({ secretKey, secretValue: "v2" })) }));
      expect(refused.code).toBe("PermissionDenied");
      expect(refused.message).toContain("OTHER");
      expect([...(await listed()).values()].every((s) => s.secretValue === "v1")).toBe(true);
      // Every name the rule allows: written.
      await w.sr.secrets.updateMany(appOnly, { ...at(w), mode: "upsert", secrets: names.map((secretKey) => ({ secretKey, secretValue: "v2" })) });
      expect([...(await listed()).values()].every((s) => s.secretValue === "v2")).toBe(true);
    });

    it("decides by folder when rules look only at places", async () => {
      await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "app" });
      const appFolder = await w.userWith([
        await w.role("folder-writer", [{ subject: "secrets", action: ["read", "create", "edit", "delete"], conditions: { secretPath: { $glob: "/app" } } }]),
      ]);
      const secrets = names.map((secretKey) => ({ secretKey, secretValue: "v2", secretPath: "/app" }));
      await w.sr.secrets.updateMany(appFolder, { ...at(w), mode: "upsert", secrets });
      const refused = await rejection(w.sr.secrets.updateMany(appFolder, { ...at(w), mode: "upsert", secrets: [...secrets, { secretKey: "ROOTED", secretValue: "x", secretPath: "/" }] }));
      expect(refused.code).toBe("PermissionDenied");
      expect((await listed()).has("ROOTED")).toBe(false);
      const { secrets: inApp } = await w.sr.secrets.list(w.admin, at(w, "dev", "/app"));
      expect(inApp).toHaveLength(SIZE);
    });
  });
});
