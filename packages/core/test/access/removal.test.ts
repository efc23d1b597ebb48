import { describe, expect, it } from "vitest";
import { projectAccessFrom, type ProjectRow } from "../../src/access/project-access.js";
import { mayDeleteEverything, RefusedRemovals } from "../../src/access/removal.js";
import type { PermissionRule } from "../../src/permissions/index.js";

const accessWith = (rules: PermissionRule[]) => projectAccessFrom({ id: "p" } as ProjectRow, "member", undefined, rules);
const deleteSecrets = (conditions?: Record<string, unknown>, inverted?: boolean): PermissionRule => ({
  subject: "secrets",
  action: "delete",
  ...(conditions ? { conditions } : {}),
  ...(inverted ? { inverted } : {}),
});

describe("mayDeleteEverything: no object needs a look", () => {
  it.each<[string, PermissionRule[], Record<string, unknown> | undefined, boolean]>([
    ["admin, anywhere", [{ subject: "all", action: "manage" }], undefined, true],
    ["delete on secrets, in a folder", [deleteSecrets()], { environment: "dev", secretPath: "/a" }, true],
    ["delete in the environment, in its folder", [deleteSecrets({ environment: "dev" })], { environment: "dev", secretPath: "/a" }, true],
    ["delete in another environment", [deleteSecrets({ environment: "prod" })], { environment: "dev", secretPath: "/a" }, false],
    ["a tag deny makes names and tags matter", [deleteSecrets(), deleteSecrets({ secretTags: { $in: ["pci"] } }, true)], { environment: "dev" }, false],
    ["a name deny makes names matter", [deleteSecrets(), deleteSecrets({ secretName: { $glob: "*_LIVE_*" } }, true)], { environment: "dev" }, false],
    ["a deny in another environment does not", [deleteSecrets(), deleteSecrets({ environment: "prod" }, true)], { environment: "dev", secretPath: "/" }, true],
    ["a deny below another folder does not", [deleteSecrets(), deleteSecrets({ secretPath: { $glob: "/locked/**" } }, true)], { environment: "dev", secretPath: "/open" }, true],
    ["nothing held", [], undefined, false],
  ])("%s", (_name, rules, conditions, everything) => {
    expect(mayDeleteEverything(accessWith(rules), "secrets", conditions)).toBe(everything);
  });
});

describe("RefusedRemovals", () => {
  const tally = (notes: [string, boolean][]) => {
    const refused = new RefusedRemovals();
    for (const [kind, allowed] of notes) refused.note(kind, allowed);
    return refused;
  };

  it.each<[string, [string, boolean][], string | undefined]>([
    ["nothing removed", [], undefined],
    ["everything allowed", [["secrets", true], ["folders", true]], undefined],
    ["one secret", [["secrets", false], ["secrets", true]], "You are not allowed to delete folder '/a': it holds 1 secret you are not allowed to delete"],
    ["two secrets", [["secrets", false], ["secrets", false]], "You are not allowed to delete folder '/a': it holds 2 secrets you are not allowed to delete"],
    [
      "several kinds, in the order first met",
      [["secrets", false], ["proxied services", false], ["proxied services", false], ["folders", false], ["imports", true]],
      "You are not allowed to delete folder '/a': it holds 1 secret, 2 proxied services and 1 folder you are not allowed to delete",
    ],
    ["a plural in -ies", [["policies", false]], "You are not allowed to delete folder '/a': it holds 1 policy you are not allowed to delete"],
  ])("%s", (_name, notes, message) => {
    const refused = tally(notes);
    expect(refused.message("folder '/a'")).toBe(message);
    expect(refused.isEmpty).toBe(message === undefined);
    if (message) expect(() => refused.assertNone("folder '/a'")).toThrow(message);
    else expect(() => refused.assertNone("folder '/a'")).not.toThrow();
  });
});
