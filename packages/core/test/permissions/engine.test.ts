import { describe, expect, it } from "vitest";
import { can, compileRules, UnsupportedConditionError, type PermissionRule } from "../../src/permissions/index.js";

type Target = Record<string, unknown>;

const allows = (rules: PermissionRule[], action: string, subject: string, object?: Target) =>
  can(compileRules(rules), action, subject, object);

const read = (conditions: Record<string, unknown>): PermissionRule[] => [{ subject: "secrets", action: "read", conditions }];

describe("conditions", () => {
  it.each<[string, Record<string, unknown>, Target, boolean]>([
    ["plain value equals", { environment: "dev" }, { environment: "dev" }, true],
    ["plain value differs", { environment: "dev" }, { environment: "prod" }, false],
    ["plain value, field missing", { environment: "dev" }, {}, false],
    ["plain value, any array element", { secretTags: "a" }, { secretTags: ["b", "a"] }, true],
    ["plain value, no array element", { secretTags: "a" }, { secretTags: ["b"] }, false],
    ["plain value never equals a number", { environment: "1" }, { environment: 1 }, false],
    ["$eq equals", { environment: { $eq: "dev" } }, { environment: "dev" }, true],
    ["$eq differs", { environment: { $eq: "dev" } }, { environment: "prod" }, false],
    ["$eq, array element", { secretTags: { $eq: "a" } }, { secretTags: ["a"] }, true],
    ["$ne differs", { environment: { $ne: "prod" } }, { environment: "dev" }, true],
    ["$ne equals", { environment: { $ne: "prod" } }, { environment: "prod" }, false],
    ["$ne, field missing", { environment: { $ne: "prod" } }, {}, true],
    ["$ne, array holds it", { secretTags: { $ne: "a" } }, { secretTags: ["b", "a"] }, false],
    ["$ne, array lacks it", { secretTags: { $ne: "a" } }, { secretTags: ["b"] }, true],
    ["$in listed", { environment: { $in: ["dev", "staging"] } }, { environment: "staging" }, true],
    ["$in not listed", { environment: { $in: ["dev", "staging"] } }, { environment: "prod" }, false],
    ["$in empty list", { environment: { $in: [] } }, { environment: "dev" }, false],
    ["$in, some array element", { secretTags: { $in: ["x", "a"] } }, { secretTags: ["b", "a"] }, true],
    ["$in, no array element", { secretTags: { $in: ["x"] } }, { secretTags: ["b", "a"] }, false],
    ["$in, empty array", { secretTags: { $in: ["x"] } }, { secretTags: [] }, false],
    ["$in, long list", { secretName: { $in: Array.from({ length: 20 }, (_, i) => `K${i}`) } }, { secretName: "K17" }, true],
    ["$all, every value present", { secretTags: { $all: ["a", "b"] } }, { secretTags: ["b", "c", "a"] }, true],
    ["$all, one value missing", { secretTags: { $all: ["a", "b"] } }, { secretTags: ["a"] }, false],
    ["$all needs an array", { secretTags: { $all: ["a"] } }, { secretTags: "a" }, false],
    ["$all, empty list, any array", { secretTags: { $all: [] } }, { secretTags: [] }, true],
    ["$all, empty list, field missing", { secretTags: { $all: [] } }, {}, false],
    ["$glob matches", { secretPath: { $glob: "/apps/**" } }, { secretPath: "/apps/a/b" }, true],
    ["$glob does not match", { secretPath: { $glob: "/apps/*" } }, { secretPath: "/apps/a/b" }, false],
    ["$glob, slashes not strict", { secretPath: { $glob: "/apps/*" } }, { secretPath: "/apps/a/" }, true],
    ["$glob root only", { secretPath: { $glob: "/" } }, { secretPath: "/apps" }, false],
    ["$glob root", { secretPath: { $glob: "/" } }, { secretPath: "/" }, true],
    ["$glob /** every folder", { secretPath: { $glob: "/**" } }, { secretPath: "/.hidden/deep" }, true],
    ["$glob empty pattern", { secretPath: { $glob: "" } }, { secretPath: "" }, false],
    ["$glob, array element", { secretTags: { $glob: "team-*" } }, { secretTags: ["x", "team-a"] }, true],
    ["$glob, field missing", { secretPath: { $glob: "**" } }, {}, false],
    ["operators on one field all hold", { secretName: { $glob: "DB_*", $ne: "DB_ROOT" } }, { secretName: "DB_USER" }, true],
    ["operators on one field, one fails", { secretName: { $glob: "DB_*", $ne: "DB_ROOT" } }, { secretName: "DB_ROOT" }, false],
    ["fields all hold", { environment: "dev", secretPath: { $glob: "/**" } }, { environment: "dev", secretPath: "/a" }, true],
    ["fields, one fails", { environment: "dev", secretPath: { $glob: "/a" } }, { environment: "dev", secretPath: "/b" }, false],
    ["empty conditions match anything", {}, {}, true],
  ])("%s", (_name, conditions, object, expected) => {
    expect(allows(read(conditions), "read", "secrets", object)).toBe(expected);
  });

  it.each([
    ["an unknown operator", { environment: { $regex: "dev" } }],
    ["a nested path", { "secret.path": "/" }],
    ["a query operator as field", { $or: [{ environment: "dev" }] }],
    ["a non-string value", { environment: 1 }],
    ["an empty operator object", { environment: {} }],
    ["a non-string list", { secretTags: { $in: [1] } }],
  ])("compiling rejects %s", (_name, conditions) => {
    expect(() => compileRules(read(conditions))).toThrow(UnsupportedConditionError);
  });
});

describe("rule order and inversion", () => {
  const dev = { environment: "dev" };
  const prod = { environment: "prod" };
  it.each<[string, PermissionRule[], Target | undefined, boolean]>([
    ["no rules deny", [], dev, false],
    ["an unconditional rule allows", [{ subject: "secrets", action: "read" }], dev, true],
    ["an inverted rule denies", [{ subject: "secrets", action: "read", inverted: true }], dev, false],
    [
      "a later denial overrides an earlier grant",
      [{ subject: "secrets", action: "read" }, { subject: "secrets", action: "read", inverted: true, conditions: prod }],
      prod,
      false,
    ],
    [
      "the denial only reaches objects it matches",
      [{ subject: "secrets", action: "read" }, { subject: "secrets", action: "read", inverted: true, conditions: prod }],
      dev,
      true,
    ],
    [
      "a later grant overrides an earlier denial",
      [{ subject: "secrets", action: "read", inverted: true }, { subject: "secrets", action: "read", conditions: dev }],
      dev,
      true,
    ],
    [
      "an earlier denial still covers what the later grant misses",
      [{ subject: "secrets", action: "read", inverted: true }, { subject: "secrets", action: "read", conditions: dev }],
      prod,
      false,
    ],
    ["other subjects do not apply", [{ subject: "role", action: "read" }], dev, false],
    ["other actions do not apply", [{ subject: "secrets", action: "edit" }], dev, false],
    ["an action list applies to each", [{ subject: "secrets", action: ["edit", "read"] }], dev, true],
  ])("%s", (_name, rules, object, expected) => {
    expect(allows(rules, "read", "secrets", object)).toBe(expected);
  });
});

describe("wildcards", () => {
  it.each<[string, PermissionRule[], string, string, boolean]>([
    ["manage covers any action", [{ subject: "secrets", action: "manage" }], "frobnicate", "secrets", true],
    ["manage stays on its subject", [{ subject: "secrets", action: "manage" }], "read", "role", false],
    ["all covers any subject", [{ subject: "all", action: "read" }], "read", "certificates", true],
    ["all keeps its action", [{ subject: "all", action: "read" }], "edit", "role", false],
    ["manage on all covers everything", [{ subject: "all", action: "manage" }], "delete", "anything", true],
    ["checking manage needs a manage rule", [{ subject: "secrets", action: ["read", "edit"] }], "manage", "secrets", false],
    ["checking all needs an all rule", [{ subject: "secrets", action: "read" }], "read", "all", false],
    ["checking all with an all rule", [{ subject: "all", action: "read" }], "read", "all", true],
    [
      "a specific denial beats a wildcard grant",
      [{ subject: "all", action: "manage" }, { subject: "secrets", action: "delete", inverted: true }],
      "delete",
      "secrets",
      false,
    ],
    [
      "a wildcard denial beats an earlier specific grant",
      [{ subject: "secrets", action: "read" }, { subject: "all", action: "manage", inverted: true }],
      "read",
      "secrets",
      false,
    ],
  ])("%s", (_name, rules, action, subject, expected) => {
    expect(allows(rules, action, subject)).toBe(expected);
  });
});

describe("checks without an object", () => {
  it.each<[string, PermissionRule[], boolean]>([
    ["a conditional grant still means may", [{ subject: "secrets", action: "read", conditions: { environment: "dev" } }], true],
    [
      "a conditional denial does not deny",
      [{ subject: "secrets", action: "read" }, { subject: "secrets", action: "read", inverted: true, conditions: { environment: "prod" } }],
      true,
    ],
    [
      "an unconditional denial denies",
      [{ subject: "secrets", action: "read", conditions: { environment: "dev" } }, { subject: "secrets", action: "read", inverted: true }],
      false,
    ],
    [
      "a denial with empty conditions denies",
      [{ subject: "secrets", action: "read" }, { subject: "secrets", action: "read", inverted: true, conditions: {} }],
      false,
    ],
    ["only a conditional denial", [{ subject: "secrets", action: "read", inverted: true, conditions: { environment: "prod" } }], false],
  ])("%s", (_name, rules, expected) => {
    expect(allows(rules, "read", "secrets")).toBe(expected);
  });
});

describe("the read alias on secrets", () => {
  it.each<[string, PermissionRule[], string, string, boolean]>([
    ["read implies describeSecret", [{ subject: "secrets", action: "read" }], "describeSecret", "secrets", true],
    ["read implies readValue", [{ subject: "secrets", action: "read" }], "readValue", "secrets", true],
    ["read on all implies readValue on secrets", [{ subject: "all", action: "read" }], "readValue", "secrets", true],
    ["readValue does not imply read", [{ subject: "secrets", action: "readValue" }], "read", "secrets", false],
    ["read elsewhere implies nothing", [{ subject: "role", action: "read" }], "readValue", "role", false],
    [
      "denying read denies readValue",
      [{ subject: "secrets", action: "manage" }, { subject: "secrets", action: "read", inverted: true }],
      "readValue",
      "secrets",
      false,
    ],
    [
      "denying readValue leaves describeSecret",
      [{ subject: "secrets", action: "read" }, { subject: "secrets", action: "readValue", inverted: true }],
      "describeSecret",
      "secrets",
      true,
    ],
  ])("%s", (_name, rules, action, subject, expected) => {
    expect(allows(rules, action, subject, {})).toBe(expected);
  });
});

describe("compiled rules", () => {
  it("answer repeated and interleaved checks consistently", () => {
    const compiled = compileRules([
      { subject: "secrets", action: "read", conditions: { environment: "dev" } },
      { subject: "all", action: "manage", inverted: true, conditions: { secretPath: { $glob: "/locked/**" } } },
    ]);
    for (let i = 0; i < 3; i++) {
      expect(can(compiled, "read", "secrets", { environment: "dev", secretPath: "/a" })).toBe(true);
      expect(can(compiled, "read", "secrets", { environment: "dev", secretPath: "/locked/a" })).toBe(false);
      expect(can(compiled, "unknown", "secrets", { environment: "dev" })).toBe(false);
      expect(can(compiled, "read", "unknown", { environment: "dev" })).toBe(false);
      expect(can(compiled, "read", "constructor", {})).toBe(false);
    }
  });

  it("keep the source rules in order", () => {
    const rules: PermissionRule[] = [{ subject: "secrets", action: "read" }, { subject: "role", action: ["read"] }];
    expect(compileRules(rules).rules.map((r) => r.source)).toEqual(rules);
  });
});
