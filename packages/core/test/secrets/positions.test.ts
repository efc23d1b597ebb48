import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshProject } from "./world.js";

/** A position is read, then written: concurrent writers must not take the same one. */
forEachStore("positions", (store) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld({ storage: await store.open() });
  });
  afterAll(() => world?.close());

  it("environments created at once each take their own position", async () => {
    const w = await freshProject(world);
    const slugs = ["qa", "uat", "perf", "demo", "sandbox", "canary"];
    const created = await Promise.all(slugs.map((slug) => w.sr.environments.create(w.admin, { projectId: w.projectId, name: slug, slug })));
    expect(created.map((c) => c.environment.position).sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it("imports created at once into one folder each take their own position", async () => {
    const w = await freshProject(world);
    const names = ["a", "b", "c", "d", "e"];
    for (const name of names) await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "prod", name });
    const created = await Promise.all(
      names.map((name) =>
        w.sr.secretImports.create(w.admin, { projectId: w.projectId, environment: "dev", path: "/", import: { environment: "prod", path: `/${name}` } }),
      ),
    );
    expect(created.map((c) => c.secretImport.position).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
  });
});
