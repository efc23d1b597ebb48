import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { can, compileRules } from "../../src/permissions/index.js";
import { checkArb, rulesArb } from "./support/arbitraries.js";
import { caslAbility, caslCan, caslObject } from "./support/casl-reference.js";

describe("engine against CASL createMongoAbility", () => {
  it("decides every generated rule set and check exactly as CASL does", () => {
    const seen = { allowed: 0, denied: 0, withObject: 0, inverted: 0 };
    fc.assert(
      fc.property(rulesArb, fc.array(checkArb, { minLength: 1, maxLength: 6 }), (rules, checks) => {
        const ours = compileRules(rules);
        const casl = caslAbility(rules);
        if (rules.some((r) => r.inverted)) seen.inverted++;
        for (const { action, subject, object } of checks) {
          const expected = caslCan(casl, action, subject, object && caslObject(subject, object));
          expect(can(ours, action, subject, object), JSON.stringify({ action, subject, object })).toBe(expected);
          seen[expected ? "allowed" : "denied"]++;
          if (object) seen.withObject++;
        }
      }),
      { numRuns: 10_000 },
    );
    // The generators must exercise both answers, objects and denials, or the comparison proves little.
    expect(seen.allowed).toBeGreaterThan(2_000);
    expect(seen.denied).toBeGreaterThan(2_000);
    expect(seen.withObject).toBeGreaterThan(10_000);
    expect(seen.inverted).toBeGreaterThan(5_000);
  });
});
