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
    expect(created.map((c) => c.environment.position).sort((a, b) => a - b)).toEqual([4, 5, 6, 7, 8, 9]);
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

  it("imports moved and removed at once keep the positions 1…n", async () => {
    const w = await freshProject(world);
    const names = ["a", "b", "c", "d", "e", "f"];
    const ids: string[] = [];
    for (const name of names) {
      await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "prod", name });
      const { secretImport } = await w.sr.secretImports.create(w.admin, {
        projectId: w.projectId,
        environment: "dev",
        path: "/",
        import: { environment: "prod", path: `/${name}` },
      });
      ids.push(secretImport.id);
    }
    await Promise.all([
      w.sr.secretImports.update(w.admin, { projectId: w.projectId, secretImportId: ids[5]!, import: { position: 1 } }),
      w.sr.secretImports.delete(w.admin, { projectId: w.projectId, secretImportId: ids[1]! }),
      w.sr.secretImports.update(w.admin, { projectId: w.projectId, secretImportId: ids[0]!, import: { position: 6 } }),
      w.sr.secretImports.delete(w.admin, { projectId: w.projectId, secretImportId: ids[3]! }),
    ]);
    const { secretImports } = await w.sr.secretImports.list(w.admin, { projectId: w.projectId, environment: "dev", path: "/" });
    expect(secretImports.map((i) => i.position)).toEqual([1, 2, 3, 4]);
    expect(secretImports.map((i) => i.importPath).sort()).toEqual(["/a", "/c", "/e", "/f"]);
  });
});
