import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { builtInProjectRoles, can, compileRules, missingPermissions, type PermissionRule } from "../../src/permissions/index.js";
import { CHECKED_ACTIONS, CHECKED_SUBJECTS, grantArb, modelObjectArb } from "./support/arbitraries.js";

const secrets = (action: string | string[], conditions?: Record<string, unknown>, inverted?: boolean): PermissionRule => ({
  subject: "secrets",
  action,
  ...(conditions ? { conditions } : {}),
  ...(inverted ? { inverted } : {}),
});

const path = (glob: string) => ({ secretPath: { $glob: glob } });

describe("missingPermissions", () => {
  it.each<[string, PermissionRule[], PermissionRule[], boolean]>([
    ["nothing requested", [], [], true],
    ["nothing held", [], [secrets("read")], false],
    ["the same rule", [secrets("read", { environment: "dev" })], [secrets("read", { environment: "dev" })], true],
    ["an unconditional rule covers any conditions", [secrets("edit")], [secrets("edit", { environment: "dev", ...path("/a") })], true],
    ["conditions do not cover no conditions", [secrets("edit", { environment: "dev" })], [secrets("edit")], false],
    ["another action", [secrets("read")], [secrets("edit")], false],
    ["another subject", [{ subject: "role", action: "read" }], [secrets("read")], false],
    ["manage covers an action", [secrets("manage")], [secrets(["read", "edit"])], true],
    ["actions do not cover manage", [secrets(["read", "create", "edit", "delete"])], [secrets("manage")], false],
    ["all covers a subject", [{ subject: "all", action: "read" }], [{ subject: "role", action: "read" }], true],
    ["a subject does not cover all", [secrets("manage")], [{ subject: "all", action: "read" }], false],
    ["/apps/** covers /apps/*", [secrets("read", path("/apps/**"))], [secrets("read", path("/apps/*"))], true],
    ["/apps/** covers /apps/x", [secrets("read", path("/apps/**"))], [secrets("read", { secretPath: "/apps/x" })], true],
    ["/apps/* does not cover /apps/**", [secrets("read", path("/apps/*"))], [secrets("read", path("/apps/**"))], false],
    ["/apps/* covers /apps/x", [secrets("read", path("/apps/*"))], [secrets("read", { secretPath: "/apps/x" })], true],
    ["/apps/* does not cover /apps/x/y", [secrets("read", path("/apps/*"))], [secrets("read", { secretPath: "/apps/x/y" })], false],
    ["/** covers the root", [secrets("read", path("/**"))], [secrets("read", path("/"))], true],
    ["the root does not cover /**", [secrets("read", path("/"))], [secrets("read", path("/**"))], false],
    ["equality by equality", [secrets("read", { environment: "dev" })], [secrets("read", { environment: { $eq: "dev" } })], true],
    ["equality by another value", [secrets("read", { environment: "dev" })], [secrets("read", { environment: "prod" })], false],
    ["equality by $in", [secrets("read", { environment: { $in: ["dev", "prod"] } })], [secrets("read", { environment: "dev" })], true],
    ["$in by equality of each", [secrets("read", { environment: "dev" }), secrets("read", { environment: "prod" })], [secrets("read", { environment: { $in: ["dev", "prod"] } })], true],
    ["$in with one value uncovered", [secrets("read", { environment: "dev" })], [secrets("read", { environment: { $in: ["dev", "prod"] } })], false],
    ["$in by a wider $in", [secrets("read", { environment: { $in: ["a", "b", "c"] } })], [secrets("read", { environment: { $in: ["a", "c"] } })], true],
    ["$in by a glob", [secrets("read", { secretName: { $glob: "DB_*" } })], [secrets("read", { secretName: { $in: ["DB_A", "DB_B"] } })], true],
    ["an empty $in needs nothing", [], [secrets("read", { environment: { $in: [] } })], true],
    ["$ne by the same $ne", [secrets("read", { environment: { $ne: "prod" } })], [secrets("read", { environment: { $ne: "prod" }, secretName: "X" })], true],
    ["$ne by an equality elsewhere", [secrets("read", { environment: { $ne: "prod" } })], [secrets("read", { environment: "dev" })], true],
    ["$ne not by a wider request", [secrets("read", { environment: { $ne: "prod" } })], [secrets("read", { secretName: "X" })], false],
    ["tags $in by $all", [secrets("read", { secretTags: { $in: ["a", "x"] } })], [secrets("read", { secretTags: { $all: ["a", "b"] } })], true],
    ["tags $all by a larger $all", [secrets("read", { secretTags: { $all: ["a"] } })], [secrets("read", { secretTags: { $all: ["a", "b"] } })], true],
    ["tags $all not by a smaller $all", [secrets("read", { secretTags: { $all: ["a", "b"] } })], [secrets("read", { secretTags: { $all: ["a"] } })], false],
    ["tags $all by equality", [secrets("read", { secretTags: { $all: ["a"] } })], [secrets("read", { secretTags: "a" })], true],
    ["tags $ne not by an equality", [secrets("read", { secretTags: { $ne: "b" } })], [secrets("read", { secretTags: "a" })], false],
    ["tags $in not by a wider $in", [secrets("read", { secretTags: { $in: ["a"] } })], [secrets("read", { secretTags: { $in: ["a", "b"] } })], false],
    ["a held condition the request lacks", [secrets("read", { environment: "dev", ...path("/**") })], [secrets("read", { environment: "dev" })], false],
    ["extra requested conditions narrow", [secrets("read", { environment: "dev" })], [secrets("read", { environment: "dev", ...path("/a/**") })], true],
    ["read needs its aliases", [secrets(["describeSecret", "readValue"])], [secrets("read")], false],
    ["read covers its aliases", [secrets("read")], [secrets(["describeSecret", "readValue"])], true],
    ["requested denials need nothing", [], [secrets("read", undefined, true)], true],
    ["a later unconditional denial", [secrets("read"), secrets("read", undefined, true)], [secrets("read", { environment: "dev" })], false],
    ["a later denial elsewhere", [secrets("read"), secrets("read", { environment: "prod" }, true)], [secrets("read", { environment: "dev" })], true],
    ["a later denial that overlaps", [secrets("read"), secrets("read", { environment: "prod" }, true)], [secrets("read", { secretName: "X" })], false],
    ["a later denial of a disjoint folder", [secrets("read"), secrets("read", path("/prod/**"), true)], [secrets("read", path("/dev/**"))], true],
    ["a later denial of a nested folder", [secrets("read"), secrets("read", path("/dev/secret/**"), true)], [secrets("read", path("/dev/**"))], false],
    ["a later denial of another action", [secrets("read"), secrets("edit", undefined, true)], [secrets("read")], true],
    ["a denial before the grant does not matter", [secrets("read", undefined, true), secrets("read")], [secrets("read")], true],
    ["a denial of readValue blocks read", [secrets("read"), secrets("readValue", undefined, true)], [secrets("read")], false],
    ["a wildcard denial blocks", [secrets("read"), { subject: "all", action: "manage", inverted: true, conditions: { environment: "prod" } }], [secrets("read", { environment: "prod" })], false],
    ["any subject's denial blocks a request on all", [{ subject: "all", action: "read" }, { subject: "role", action: "read", inverted: true }], [{ subject: "all", action: "read" }], false],
  ])("%s → covered: %s", (_name, granter, requested, covered) => {
    expect(missingPermissions(granter, requested).length === 0).toBe(covered);
  });

  it("reports each missing rule and action once, with its conditions", () => {
    const requested = [secrets(["read", "edit"], { environment: "prod" }), secrets(["edit"], { environment: "prod" })];
    expect(missingPermissions([secrets("read")], requested)).toEqual([{ subject: "secrets", action: "edit", conditions: { environment: "prod" } }]);
  });

  it("accepts compiled rules", () => {
    expect(missingPermissions(compileRules([secrets("manage")]), [secrets("delete")])).toEqual([]);
  });

  it("lets admin grant every built-in role and each role grant itself", () => {
    const roles = Object.values(builtInProjectRoles);
    for (const granted of roles) {
      expect(missingPermissions(builtInProjectRoles.admin.permissions, granted.permissions), granted.slug).toEqual([]);
      expect(missingPermissions(granted.permissions, granted.permissions), granted.slug).toEqual([]);
    }
    const { member, viewer } = builtInProjectRoles;
    expect(missingPermissions(member.permissions, builtInProjectRoles.admin.permissions)).not.toEqual([]);
    expect(missingPermissions(viewer.permissions, member.permissions)).not.toEqual([]);
    // DESIGN.md §4 gives viewers reads (members, identities, PKI) that members lack.
    expect(missingPermissions(member.permissions, viewer.permissions)).toContainEqual({ subject: "member", action: "read" });
  });

  it("is sound: what the granted rules allow, the granter allows too", () => {
    let covered = 0;
    fc.assert(
      fc.property(grantArb, fc.array(modelObjectArb, { minLength: 1, maxLength: 30 }), ({ granter, requested }, objects) => {
        if (missingPermissions(granter, requested).length > 0) return;
        covered++;
        const [held, granted] = [compileRules(granter), compileRules(requested)];
        for (const subject of CHECKED_SUBJECTS) {
          for (const action of CHECKED_ACTIONS) {
            for (const object of objects) {
              if (can(granted, action, subject, object)) {
                expect(can(held, action, subject, object), JSON.stringify({ action, subject, object })).toBe(true);
              }
            }
          }
        }
      }),
      { numRuns: 10_000 },
    );
    // Most generated grants must be judged within reach, or soundness would hold vacuously.
    expect(covered).toBeGreaterThan(3_000);
  });
});
