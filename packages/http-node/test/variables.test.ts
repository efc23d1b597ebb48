import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { environmentWithFlags, SERVER_VARIABLES } from "../src/server/variables.js";

const serverDir = fileURLToPath(new URL("../src/server/", import.meta.url));

/** Every `env.NAME` / `env["NAME"]` the server's start-up code reads. */
function variablesRead(): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(serverDir).filter((f) => f.endsWith(".ts"))) {
    const source = readFileSync(join(serverDir, file), "utf8");
    for (const match of source.matchAll(/\benv(?:\?)?\.([A-Z][A-Z0-9_]+)\b|\benv\[["']([A-Z][A-Z0-9_]+)["']\]/g)) names.add(match[1] ?? match[2]);
  }
  return [...names].sort();
}

describe("the server's environment variables", () => {
  it("each has a `strongroom serve` flag (add a row to SERVER_VARIABLES for a new one)", () => {
    const listed = SERVER_VARIABLES.map((v) => v.name);
    expect(variablesRead().filter((name) => !listed.includes(name))).toEqual([]);
    expect(variablesRead().length).toBeGreaterThanOrEqual(11);
  });

  it("lists each variable and flag once", () => {
    expect(new Set(SERVER_VARIABLES.map((v) => v.name)).size).toBe(SERVER_VARIABLES.length);
    expect(new Set(SERVER_VARIABLES.map((v) => v.flag)).size).toBe(SERVER_VARIABLES.length);
  });

  it("sets a given flag's variable over the process environment and leaves the rest", () => {
    const env = environmentWithFlags({ PORT: "1", HOST: "h", OTHER: "x" }, { port: "9000", dataDir: "/tmp/d", unknown: "y" });
    expect(env).toEqual({ PORT: "9000", HOST: "h", OTHER: "x", DATA_DIR: "/tmp/d" });
  });
});
