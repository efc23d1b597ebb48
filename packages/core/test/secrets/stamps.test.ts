import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { at, freshProject } from "./world.js";

/**
 * Project stamps (what list ETags are read from) move in the transaction of the write, on every
 * store: a write that commits moves it, one that rolls back does not, and concurrent first
 * writers of a project all succeed.
 */
forEachStore("project stamps", (store) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld({ storage: await store.open(), audit: false });
  });
  afterAll(() => world?.close());

  const stampOf = async (projectId: string) => (await world.storage.tables.secretStamps.get(projectId))?.stamp;

  it("moves with a committed write and stays with a rolled-back one", async () => {
    const w = await freshProject(world);
    await w.sr.secrets.create(w.admin, { ...at(w), secretName: "A", secretValue: "1" });
    const before = await stampOf(w.projectId);
    expect(before).toBeTruthy();
    // The second item collides with an existing name: the whole batch rolls back.
    const failing = w.sr.secrets.createMany(w.admin, { ...at(w), secrets: [{ secretKey: "B", secretValue: "2" }, { secretKey: "A", secretValue: "3" }] });
    await expect(failing).rejects.toBeTruthy();
    expect(await stampOf(w.projectId)).toBe(before);
    await w.sr.secrets.update(w.admin, { ...at(w), secretName: "A", secretValue: "4" });
    expect(await stampOf(w.projectId)).not.toBe(before);
  });

  it("lets concurrent first writers of a project all commit", async () => {
    const w = await freshProject(world);
    await world.storage.tables.secretStamps.delete({ id: w.projectId });
    const names = Array.from({ length: 8 }, (_, i) => `FIRST_${i}`);
    await Promise.all(names.map((secretName) => w.sr.secrets.create(w.admin, { ...at(w), secretName, secretValue: "x" })));
    expect(await stampOf(w.projectId)).toBeTruthy();
    expect(await world.storage.tables.secretStamps.count({ id: w.projectId })).toBe(1);
  });
});
