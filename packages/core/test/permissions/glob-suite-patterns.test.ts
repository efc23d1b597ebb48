import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { GLOB_OPTIONS, globProblem, globPredicate } from "../../src/permissions/glob.js";
import { fieldUniverse } from "./support/arbitraries.js";

/**
 * Every glob the suites, benches, examples and docs use keeps its meaning under the linear
 * matcher: it is still accepted, and it answers as picomatch did on every path and name those
 * files mention (plus variants around them). Patterns are read from the sources, so a glob a
 * new test adds is covered too.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), "../../../..");

function files(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === "dist" || entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files(path, out);
    else if (/\.(ts|md)$/.test(entry)) out.push(path);
  }
  return out;
}

// Files about refused syntax (they say "extglob") hold patterns meant to be refused.
const sources = [...files(join(root, "packages")), ...files(join(root, "bench")), ...files(join(root, "examples")), join(root, "README.md")]
  .map((f) => readFileSync(f, "utf8"))
  .filter((text) => !/extglob/i.test(text));

const unquote = (literal: string): string => JSON.parse(`"${literal.replace(/\\'/g, "'")}"`) as string;
const collect = (pattern: RegExp): Set<string> => {
  const found = new Set<string>();
  for (const text of sources) for (const match of text.matchAll(pattern)) found.add(unquote(match[1] ?? match[2]));
  return found;
};

const STRING = `"((?:[^"\\\\\\n]|\\\\.)*)"|'((?:[^'\\\\\\n]|\\\\.)*)'`;
const GLOB_CHARS = /[*?[{]/;
const globs = [
  ...collect(new RegExp(`\\$glob:\\s*(?:${STRING})`, "g")),
  ...[...collect(new RegExp(`secretPath:\\s*(?:${STRING})`, "g"))].filter((p) => GLOB_CHARS.test(p)),
  // The pools the property tests draw from.
  "prod*",
  "/apps/{a,b}",
  "/apps/?",
  "a*",
  "/b/*",
];

const values = new Set<string>([
  ...collect(new RegExp(`(?:secretPath|path|secretName|key|secretKey|environment|slug):\\s*(?:${STRING})`, "g")),
  ...["secretPath", "secretName", "environment"].flatMap((f) => fieldUniverse(f as never).filter((v): v is string => typeof v === "string")),
]);
for (const value of [...values]) {
  for (const variant of [`${value}/`, `${value}/x`, `${value}/.hidden`, `/${value}`, `${value}x`, value.toLowerCase(), value.slice(0, -1)]) values.add(variant);
}

describe("globs the suites use", () => {
  it("were found in the sources", () => {
    expect(globs.length).toBeGreaterThan(20);
    expect(values.size).toBeGreaterThan(200);
  });

  it("are all still accepted", () => {
    expect(globs.filter((g) => globProblem(g) !== undefined)).toEqual([]);
  });

  it("answer as picomatch did on every path and name the suites mention", () => {
    const differences: string[] = [];
    for (const glob of globs) {
      const ours = globPredicate(glob);
      const theirs = glob === "" ? () => false : picomatch(glob, GLOB_OPTIONS);
      for (const value of values) if (ours(value) !== theirs(value)) differences.push(`${glob} on ${value}`);
    }
    expect(differences).toEqual([]);
  });
});
