import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  allowedOnEvery,
  can,
  compileRules,
  couldAllow,
  independentOf,
  widenedActions,
  type PermissionRule,
} from "../../src/permissions/index.js";
import { ACTIONS, FIELDS, fieldUniverse, modelObjectArb, rulesArb } from "./support/arbitraries.js";

type Field = (typeof FIELDS)[number];

/** Every way of filling `free` fields of `base` with model values (absent included). */
function completions(base: Record<string, unknown>, free: readonly Field[]): Record<string, unknown>[] {
  return free.reduce<Record<string, unknown>[]>(
    (objects, field) =>
      objects.flatMap((object) =>
        fieldUniverse(field).map((value) => {
          const { [field]: _dropped, ...rest } = object;
          return value === undefined ? rest : { ...rest, [field]: value };
        }),
      ),
    [base],
  );
}

const SECRET_ACTIONS = ["read", "describeSecret", "readValue", "create", "edit", "delete"];

describe("couldAllow", () => {
  const counts = { refused: 0, allowed: 0 };

  it("never refuses when some values of the free fields would allow (exhaustively over the model)", () => {
    fc.assert(
      fc.property(
        rulesArb,
        modelObjectArb,
        fc.subarray(FIELDS, { minLength: 1, maxLength: 2 }),
        fc.constantFrom(...ACTIONS),
        fc.constantFrom("secrets", "secret-folders"),
        (rules, base, free, action, subject) => {
          const compiled = compileRules(rules);
          const could = couldAllow(compiled, action, subject, base, free);
          const some = completions(base, free).find((object) => can(compiled, action, subject, object));
          if (some) expect(could, JSON.stringify({ rules, base, free, some })).toBe(true);
          // With nothing free, it is `can` itself.
          expect(couldAllow(compiled, action, subject, base, [])).toBe(can(compiled, action, subject, base));
          counts[could ? "allowed" : "refused"]++;
        },
      ),
      { numRuns: 5_000 },
    );
    // Both answers were given often enough for the check above to mean something.
    expect(counts.refused).toBeGreaterThan(500);
    expect(counts.allowed).toBeGreaterThan(500);
  });

  const denyTag: PermissionRule[] = [
    { subject: "secrets", action: ["read", "edit"] },
    { subject: "secrets", action: "read", inverted: true, conditions: { secretTags: { $in: ["pci"] } } },
  ];
  const prodDenied: PermissionRule[] = [
    { subject: "secrets", action: "read" },
    { subject: "secrets", action: "read", inverted: true, conditions: { environment: "prod" } },
  ];
  const liveDenied: PermissionRule[] = [
    { subject: "secrets", action: "read" },
    { subject: "secrets", action: "describeSecret", inverted: true, conditions: { secretName: { $glob: "*_LIVE_*" } } },
  ];
  const onlyTagged: PermissionRule[] = [{ subject: "secrets", action: "describeSecret", conditions: { secretTags: { $in: ["public"] } } }];
  const onlyApps: PermissionRule[] = [{ subject: "secrets", action: "read", conditions: { environment: "dev", secretPath: { $glob: "/apps/**" } } }];
  const secret = { environment: "dev", secretPath: "/", secretName: "API_LIVE_KEY" };

  it.each<[string, PermissionRule[], Record<string, unknown>, string[], boolean]>([
    ["a tag deny can be avoided: a secret of this name may be describable", denyTag, secret, ["secretTags"], true],
    ["an environment deny cannot", prodDenied, { ...secret, environment: "prod" }, ["secretTags"], false],
    ["a name deny cannot, for that name", liveDenied, secret, ["secretTags"], false],
    ["a name deny can, for a free name", liveDenied, { environment: "dev", secretPath: "/" }, ["secretTags", "secretName"], true],
    ["an allow that needs a tag can be met", onlyTagged, secret, ["secretTags"], true],
    ["an allow below /apps, asked at the root", onlyApps, secret, ["secretTags"], false],
    ["an allow below /apps, asked below it", onlyApps, { ...secret, secretPath: "/apps/x" }, ["secretTags"], true],
    ["an allow below /apps, path free", onlyApps, { environment: "dev" }, ["secretTags", "secretName", "secretPath"], true],
    ["an allow below /apps, other environment", onlyApps, { environment: "prod" }, ["secretTags", "secretName", "secretPath"], false],
    ["no rules", [], secret, ["secretTags", "secretName"], false],
  ])("%s", (_name, rules, object, free, expected) => {
    expect(couldAllow(compileRules(rules), "describeSecret", "secrets", object, free)).toBe(expected);
  });
});

describe("widenedActions", () => {
  const at = (secretName: string, secretTags: string[], environment = "dev") => ({ environment, secretPath: "/", secretName, secretTags });

  it.each<[string, PermissionRule[], Record<string, unknown>, Record<string, unknown>, string[]]>([
    [
      "dropping a denied tag hands over reading",
      [
        { subject: "secrets", action: ["read", "edit"] },
        { subject: "secrets", action: "read", inverted: true, conditions: { secretTags: { $in: ["pci"] } } },
      ],
      at("K", ["pci"]),
      at("K", []),
      ["read", "describeSecret", "readValue"],
    ],
    [
      "renaming out of a denied name hands over the value",
      [
        { subject: "secrets", action: ["read", "edit"] },
        { subject: "secrets", action: "readValue", inverted: true, conditions: { secretName: { $glob: "*_LIVE_*" } } },
      ],
      at("API_LIVE_KEY", []),
      at("API_KEY", []),
      ["readValue"],
    ],
    [
      "renaming the environment out of a deny hands over deleting",
      [
        { subject: "secrets", action: ["read", "edit", "delete"] },
        { subject: "secrets", action: "delete", inverted: true, conditions: { environment: "prod" } },
      ],
      at("K", [], "prod"),
      at("K", [], "production"),
      ["delete"],
    ],
    [
      "moving into a deny hands over nothing",
      [
        { subject: "secrets", action: ["read", "edit"] },
        { subject: "secrets", action: "read", inverted: true, conditions: { secretTags: { $in: ["pci"] } } },
      ],
      at("K", []),
      at("K", ["pci"]),
      [],
    ],
    ["the same rights on both sides", [{ subject: "all", action: "manage" }], at("A", []), at("B", ["x"]), []],
  ])("%s", (_name, rules, before, after, expected) => {
    expect(widenedActions(compileRules(rules), "secrets", before, after, SECRET_ACTIONS).sort()).toEqual([...expected].sort());
  });
});

describe("independentOf and allowedOnEvery", () => {
  it("a field no deciding rule names never changes an answer", () => {
    fc.assert(
      fc.property(rulesArb, modelObjectArb, fc.constantFrom(...FIELDS), fc.constantFrom(...ACTIONS), (rules, base, field, action) => {
        const compiled = compileRules(rules);
        if (!independentOf(compiled, "secrets", [action], [field])) return;
        const answers = new Set(completions(base, [field]).map((object) => can(compiled, action, "secrets", object)));
        expect(answers.size).toBe(1);
      }),
      { numRuns: 3_000 },
    );
  });

  it("allowedOnEvery means allowed on any object", () => {
    fc.assert(
      fc.property(rulesArb, modelObjectArb, fc.constantFrom(...ACTIONS), (rules, object, action) => {
        const compiled = compileRules(rules);
        if (allowedOnEvery(compiled, action, "secrets")) expect(can(compiled, action, "secrets", object)).toBe(true);
      }),
      { numRuns: 3_000 },
    );
    expect(allowedOnEvery(compileRules([{ subject: "all", action: "manage" }]), "edit", "secrets")).toBe(true);
    expect(allowedOnEvery(compileRules([{ subject: "secrets", action: "edit", conditions: { environment: "dev" } }]), "edit", "secrets")).toBe(false);
  });
});
