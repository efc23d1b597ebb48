import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { listedOrder, positionsOf, reorder, type OrderChange } from "../../src/access/environment-order.js";

const ids = ["dev", "staging", "prod"];

describe("the order of a project's environments", () => {
  it.each<[string, OrderChange, string[]]>([
    ["a new one goes last", { kind: "insert", id: "qa" }, ["dev", "staging", "prod", "qa"]],
    ["a new one at 1 goes first", { kind: "insert", id: "qa", at: 1 }, ["qa", "dev", "staging", "prod"]],
    ["a new one at 2 makes room", { kind: "insert", id: "qa", at: 2 }, ["dev", "qa", "staging", "prod"]],
    ["a new one past the end goes last", { kind: "insert", id: "qa", at: 99 }, ["dev", "staging", "prod", "qa"]],
    ["a move forward", { kind: "move", id: "prod", to: 1 }, ["prod", "dev", "staging"]],
    ["a move backward", { kind: "move", id: "dev", to: 3 }, ["staging", "prod", "dev"]],
    ["a move past the end goes last", { kind: "move", id: "dev", to: 10 }, ["staging", "prod", "dev"]],
    ["a move to its own place changes nothing", { kind: "move", id: "staging", to: 2 }, ["dev", "staging", "prod"]],
    ["a removal closes up", { kind: "remove", id: "staging" }, ["dev", "prod"]],
    ["removing the last", { kind: "remove", id: "prod" }, ["dev", "staging"]],
  ])("%s", (_name, change, expected) => {
    expect(reorder(ids, change)).toEqual(expected);
    expect([...positionsOf(expected).values()]).toEqual(expected.map((_, i) => i + 1));
  });

  it("lists stored rows by position, then age, so rows stored 0-based or with ties still list in a stable order", () => {
    const rows = [
      { id: "b", position: 0, createdAt: "2026-01-02T00:00:00.000Z" },
      { id: "a", position: 0, createdAt: "2026-01-01T00:00:00.000Z" },
      { id: "c", position: 5, createdAt: "2026-01-01T00:00:00.000Z" },
    ];
    expect(listedOrder(rows).map((r) => r.id)).toEqual(["a", "b", "c"]);
  });

  it("always leaves a permutation with contiguous positions, the changed one where it was asked to be", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 12 }),
        fc.nat(),
        fc.integer({ min: -5, max: 20 }),
        fc.constantFrom("insert", "move", "remove"),
        (current, pick, to, kind) => {
          const existing = current.length ? current[pick % current.length] : undefined;
          const change: OrderChange =
            kind === "insert" || !existing ? { kind: "insert", id: "\u0000new", at: to } : kind === "move" ? { kind: "move", id: existing, to } : { kind: "remove", id: existing };
          const next = reorder(current, change);
          const expectedIds = change.kind === "remove" ? current.filter((id) => id !== change.id) : change.kind === "insert" ? [...current, change.id] : current;
          expect([...next].sort()).toEqual([...expectedIds].sort());
          if (change.kind !== "remove") expect(next.indexOf(change.id) + 1).toBe(Math.min(Math.max(to, 1), next.length));
          // Everything else keeps its relative order.
          expect(next.filter((id) => id !== change.id)).toEqual(current.filter((id) => id !== change.id));
        },
      ),
    );
  });
});
