import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cycles, folderGraph, readImportGraph, sourceFiles } from "./import-graph.js";

/**
 * The floor plan holds (CONTRIBUTING.md): no import cycle anywhere in the packages' sources,
 * between files or between core's top-level folders; the ground floor (storage port, kernel,
 * scheduler) imports no area; folders stay small; operations state rules, not SQL shapes.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const packages = ["core", "http-node", "storage-kysely", "storage-sqlite", "storage-postgres", "agent-proxy", "cli"];
const graph = readImportGraph(root, packages.map((p) => `packages/${p}/src`));
const CORE = "packages/core/src/";

/** Core's top-level folder of a file; files directly in `src/` (the assembly) are their own room. */
const floorOf = (file: string): string => {
  if (!file.startsWith(CORE)) return file.split("/").slice(0, 2).join("/");
  const rest = file.slice(CORE.length);
  return rest.includes("/") ? rest.split("/")[0] : "(assembly)";
};

describe("the floor plan", () => {
  it("has no import cycle between files, type imports included", () => {
    expect(cycles(graph.files, graph.edges)).toEqual([]);
  });

  it("has no import cycle between core's top-level folders", () => {
    const folders = folderGraph(graph, floorOf);
    expect(cycles(folders.keys(), folders)).toEqual([]);
  });

  it("keeps the storage port, the kernel and the scheduler free of any area", () => {
    const ground = new Set(["storage", "kernel", "jobs", "crypto", "permissions"]);
    const allowed: Record<string, string[]> = {
      storage: [],
      permissions: [],
      crypto: ["storage"],
      kernel: ["storage", "crypto"],
      jobs: ["storage", "kernel", "crypto"],
    };
    const offending: string[] = [];
    for (const [file, targets] of graph.edges) {
      const from = floorOf(file);
      if (!file.startsWith(CORE) || !ground.has(from)) continue;
      for (const target of targets) {
        const to = floorOf(target);
        if (to !== from && !allowed[from].includes(to)) offending.push(`${relative(CORE, file)} -> ${relative(CORE, target)}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it("holds at most 20 source files in any folder", () => {
    const counts = new Map<string, number>();
    for (const file of graph.files) counts.set(dirname(file), (counts.get(dirname(file)) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 20)).toEqual([]);
  });

  it("lets no operation file reach storage tables directly", () => {
    const operationFiles = sourceFiles(join(root, CORE)).filter((f) => /operations?(-[\w-]+)?\.ts$|-operations\.ts$/.test(f));
    const offending = operationFiles.filter((f) => readFileSync(f, "utf8").includes(".tables.")).map((f) => relative(root, f));
    expect(offending).toEqual([]);
  });
});

describe("the front door", () => {
  it("exports at most 30 runtime names from @strongroom/core", async () => {
    const core = await import("../../src/index.js");
    expect(Object.keys(core).length).toBeLessThanOrEqual(30);
  });
});
