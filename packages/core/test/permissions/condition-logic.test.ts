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

  // The universe depends only on the fields, and a failed claim names its case: plain checks keep
  // 20,000 runs affordable (an `expect` per object costs more than the reasoning it checks).
  const universes = new Map<string, Record<string, unknown>[]>();
  const universe = (fields: Parameters<typeof objectUniverse>[0]) => {
    const key = fields.join("\u0000");
    let objects = universes.get(key);
    if (!objects) universes.set(key, (objects = objectUniverse(fields)));
    return objects;
  };
  const claim = (holds: boolean, what: string, detail: () => unknown) => {
    if (!holds) throw new Error(`${what} is wrong for ${JSON.stringify(detail())}`);
  };

  it("is sound", () => {
    fc.assert(
      fc.property(pairArb, ({ fields, a, b }) => {
        const [ca, cb] = [parseConditions(a), parseConditions(b)];
        const [matchesA, matchesB] = [conjunction(ca), conjunction(cb)];
        const objects = universe(fields);
        if (implies(ca, cb)) {
          counts.implied++;
          for (const object of objects) claim(!matchesA(object) || matchesB(object), "implies(a, b)", () => ({ a, b, object }));
        }
        if (!mayOverlap(ca, cb)) {
          counts.disjoint++;
          for (const object of objects) claim(!(matchesA(object) && matchesB(object)), "!mayOverlap(a, b)", () => ({ a, b, object }));
        }
        if (unsatisfiable(ca)) {
          counts.empty++;
          for (const object of objects) claim(!matchesA(object), "unsatisfiable(a)", () => ({ a, object }));
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
