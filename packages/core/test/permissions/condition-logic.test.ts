import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { implies, mayOverlap, unsatisfiable } from "../../src/permissions/condition-logic.js";
import { conjunction, parseConditions } from "../../src/permissions/conditions.js";
import { conditionsOnArb, fieldsArb, objectUniverse } from "./support/arbitraries.js";

// Two conjunctions over one or two fields, judged against every object of the model over those fields.
const pairArb = fieldsArb.chain((fields) =>
  fc.record({ fields: fc.constant(fields), a: conditionsOnArb(fields), b: conditionsOnArb(fields) }),
);

describe("condition set reasoning, exhaustively over the object model", () => {
  const counts = { implied: 0, disjoint: 0, empty: 0 };

  it("is sound", () => {
    fc.assert(
      fc.property(pairArb, ({ fields, a, b }) => {
        const [ca, cb] = [parseConditions(a), parseConditions(b)];
        const [matchesA, matchesB] = [conjunction(ca), conjunction(cb)];
        const objects = objectUniverse(fields);
        const label = (object: unknown) => JSON.stringify({ a, b, object });
        if (implies(ca, cb)) {
          counts.implied++;
          for (const object of objects) if (matchesA(object)) expect(matchesB(object), label(object)).toBe(true);
        }
        if (!mayOverlap(ca, cb)) {
          counts.disjoint++;
          for (const object of objects) expect(matchesA(object) && matchesB(object), label(object)).toBe(false);
        }
        if (unsatisfiable(ca)) {
          counts.empty++;
          for (const object of objects) expect(matchesA(object), label(object)).toBe(false);
        }
      }),
      { numRuns: 20_000 },
    );
    // Enough positive claims were made for the checks above to mean something.
    expect(counts.implied).toBeGreaterThan(1_000);
    expect(counts.disjoint).toBeGreaterThan(1_000);
    expect(counts.empty).toBeGreaterThan(100);
  });
});
