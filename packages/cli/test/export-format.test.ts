import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SecretEntry } from "../src/client/secrets.js";
import { dotenvQuote, formatSecrets, shellQuote } from "../src/format/export.js";

const entry = (key: string, value: string): SecretEntry => ({
  id: `id-${key}`,
  key,
  value,
  type: "shared",
  secretPath: "/",
  comment: "",
  skipMultilineEncoding: false,
  version: 1,
  tags: [],
});

describe("export formats", () => {
  it.each([
    ["plain", "KEY='plain'"],
    ["with space and $HOME", "KEY='with space and $HOME'"],
    ["it's", `KEY="it's"`],
    [`it's "both"`, `KEY='it's "both"'`],
    ["", "KEY=''"],
  ])("dotenv writes %j as %s", (value, line) => {
    expect(formatSecrets("dotenv", [entry("KEY", value)], "p")).toBe(`${line}\n`);
  });

  it.each([
    ["plain", "'plain'"],
    ["it's", `'it'\\''s'`],
    ["", "''"],
  ])("shell-quotes %j as %s", (value, quoted) => {
    expect(shellQuote(value)).toBe(quoted);
  });

  it("shell quoting gives any value back exactly", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }).filter((s) => !s.includes("\0")), (value) => {
        const out = spawnSync("sh", ["-c", `printf '%s' ${shellQuote(value)}`], { encoding: "utf8" });
        expect(out.stdout).toBe(value);
      }),
      { numRuns: 50 },
    );
  });

  it("dotenv quoting keeps the Infisical form unless the value holds a single quote", () => {
    expect(dotenvQuote("a'b")).toBe(`"a'b"`);
    expect(dotenvQuote("a\nb")).toBe("'a\nb'");
  });

  it("yaml of nothing is an empty map", () => {
    expect(formatSecrets("yaml", [], "p")).toBe("{}\n");
  });
});
