import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const workspaces: string[] = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).workspaces.filter((w: string) => !w.includes("*"));
const committed = new Set(execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n"));

/** Every command a workspace package declares: [package dir, command, file]. */
const bins = workspaces.flatMap((dir) => {
  const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  return Object.entries((pkg.bin ?? {}) as Record<string, string>).map(([name, file]) => [dir, name, join(dir, file)] as const);
});

describe("the repository's commands", () => {
  it("are strongroom and strongroom-agent-proxy", () => {
    expect(bins.map(([, name]) => name).sort()).toEqual(["strongroom", "strongroom-agent-proxy"]);
  });

  // npm links a workspace's commands while installing, before `prepare` builds dist/: a command
  // whose file is built is missing at that moment and never linked (`npx` would then ask the registry).
  it.each(bins)("%s: %s is a committed file, not a built one", (_dir, _name, file) => {
    expect(committed.has(file)).toBe(true);
    expect(file).not.toMatch(/\/dist\//);
    expect(readFileSync(join(root, file), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it.each(bins)("%s: %s is linked by npm install and answers --help", (_dir, name) => {
    const linked = join(root, "node_modules/.bin", name);
    expect(existsSync(linked)).toBe(true);
    const result = spawnSync(linked, ["--help"], { encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/usage/i);
    expect(result.stdout).toContain(name);
  });
});
