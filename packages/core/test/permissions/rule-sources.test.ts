import { describe, expect, it } from "vitest";
import { can, compileRules, mergeRuleSources, type PermissionRule } from "../../src/permissions/index.js";

const rule = (action: string, inverted = false): PermissionRule => ({ subject: "secrets", action, ...(inverted ? { inverted } : {}) });

describe("mergeRuleSources", () => {
  it("puts roles first, then privileges, each in order", () => {
    const merged = mergeRuleSources({ roles: [[rule("a"), rule("b")], [rule("c")]], privileges: [[rule("d")], [], [rule("e")]] });
    expect(merged.map((r) => r.action)).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("lets a privilege override its roles, since the last matching rule wins", () => {
    const merged = mergeRuleSources({ roles: [[rule("read")]], privileges: [[rule("read", true)]] });
    expect(can(compileRules(merged), "read", "secrets")).toBe(false);
  });

  it("is empty without sources", () => {
    expect(mergeRuleSources({ roles: [], privileges: [] })).toEqual([]);
  });
});
