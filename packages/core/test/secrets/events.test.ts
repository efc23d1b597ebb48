import type { Storage, StrongroomSchema } from "@strongroom/core/storage";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { afterAll, beforeAll, expect, it, onTestFinished } from "vitest";
import { failingStorage } from "./failing-storage.js";
import { at, freshProject } from "./world.js";

/** Records, for each event, whether every transaction begun so far had already committed. */
function commitTracking(inner: Storage<StrongroomSchema>) {
  let open = 0;
  const storage: Storage<StrongroomSchema> = {
    kind: inner.kind,
    schema: inner.schema,
    inTransaction: inner.inTransaction,
    tables: inner.tables,
    async transaction(fn) {
      open++;
      try {
        return await inner.transaction(fn);
      } finally {
        open--;
      }
    },
    close: () => inner.close(),
  };
  return { storage, inFlight: () => open };
}

forEachStore("secret events", (store) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld({ storage: await store.open() });
  });
  afterAll(() => world?.close());

  it("are published only after the transaction has committed", async () => {
    const tracked = commitTracking(await store.open());
    const w = await createTestWorld({ storage: tracked.storage });
    onTestFinished(() => w.close());
    const seenWhileOpen: number[] = [];
    w.sr.context.bus.subscribe(() => seenWhileOpen.push(tracked.inFlight()));
    await w.sr.secrets.createMany(w.admin, { ...at(w), secrets: [{ secretKey: "A" }, { secretKey: "B" }] });
    await w.sr.secrets.update(w.admin, { ...at(w), secretName: "A", secretValue: "x" });
    await w.sr.secrets.delete(w.admin, { ...at(w), secretName: "B" });
    expect(seenWhileOpen).toEqual([0, 0, 0]);
  });

  it("carry SPEC.md's shape: one per kind and folder listing every key", async () => {
    const w = await freshProject(world);
    w.events.length = 0;
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "api" });
    await w.sr.secrets.createMany(w.admin, {
      ...at(w),
      secrets: [{ secretKey: "A" }, { secretKey: "B" }, { secretKey: "C", secretPath: "/api" }],
    });
    expect(w.events).toEqual([
      {
        projectId: w.projectId,
        projectType: "secret-manager",
        eventType: "secret:create",
        payload: [
          { environment: "dev", secretPath: "/", secretKey: "A" },
          { environment: "dev", secretPath: "/", secretKey: "B" },
        ],
        itemTags: [[], []],
      },
      {
        projectId: w.projectId,
        projectType: "secret-manager",
        eventType: "secret:create",
        payload: [{ environment: "dev", secretPath: "/api", secretKey: "C" }],
        itemTags: [[]],
      },
    ]);
    w.events.length = 0;
    await w.sr.secrets.deleteMany(w.admin, { ...at(w), secrets: [{ secretKey: "A" }, { secretKey: "B" }] });
    expect(w.events.map((e) => [e.eventType, (e.payload as { secretKey: string }[]).map((p) => p.secretKey)])).toEqual([["secret:delete", ["A", "B"]]]);
  });

  it("are not published for a write that rolls back", async () => {
    const storage = failingStorage(await store.open());
    const w = await createTestWorld({ storage });
    onTestFinished(() => w.close());
    await w.sr.secrets.create(w.admin, { ...at(w), secretName: "A", secretValue: "x" });
    // An update writes the row, then files the old version: the second write fails.
    storage.failOnWrite(2);
    await expect(w.sr.secrets.update(w.admin, { ...at(w), secretName: "A", secretValue: "y" })).rejects.toThrow("injected");
    await expect(w.sr.secrets.createMany(w.admin, { ...at(w), secrets: [{ secretKey: "A" }] })).rejects.toMatchObject({ code: "BadRequest" });
    expect((await w.sr.secrets.get(w.admin, { ...at(w), secretName: "A" })).secret).toMatchObject({ secretValue: "x", version: 1 });
    expect(w.events.map((e) => e.eventType)).toEqual(["secret:create"]);
  });

  it("deleting a folder announces the deletion of every secret in it", async () => {
    const w = await freshProject(world);
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "b", path: "/a" });
    await w.sr.secrets.create(w.admin, { ...at(w, "dev", "/a"), secretName: "X" });
    await w.sr.secrets.create(w.admin, { ...at(w, "dev", "/a/b"), secretName: "Y" });
    w.events.length = 0;
    await w.sr.folders.delete(w.admin, { projectId: w.projectId, environment: "dev", path: "/", folderIdOrName: "a" });
    expect(w.events.map((e) => [e.eventType, e.payload])).toEqual([
      ["secret:delete", [{ environment: "dev", secretPath: "/a", secretKey: "X" }]],
      ["secret:delete", [{ environment: "dev", secretPath: "/a/b", secretKey: "Y" }]],
    ]);
    await expect(w.sr.secrets.list(w.admin, at(w, "dev", "/a"))).rejects.toMatchObject({ code: "NotFound" });
  });
});
