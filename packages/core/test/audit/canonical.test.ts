import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/audit/chain.js";

/** The canonical text as first defined: every object copied with its keys sorted. Stored digests were made with it. */
function referenceCopy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(referenceCopy);
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) out[key] = referenceCopy((value as Record<string, unknown>)[key]);
  return out;
}
const reference = (value: unknown): string => JSON.stringify(referenceCopy(value) ?? null);

// Keys that order differently as strings and as integers, `__proto__`, and keys already in order.
const key = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom("__proto__", "0", "1", "9", "10", "01", "-1", "a", "B", "secretKey", "secretCount", "é"));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small", withCrossShrink: true }, tie("leaf"), tie("array"), tie("object"), tie("sorted")),
  leaf: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null), fc.double({ noDefaultInfinity: true, noNaN: true })),
  array: fc.array(tie("node"), { maxLength: 5 }),
  object: fc.dictionary(key, tie("node"), { maxKeys: 5 }),
  // Built key by key in sorted order: kept as it is when its values need no copy.
  sorted: fc.dictionary(key, tie("node"), { maxKeys: 5 }).map((d) => Object.fromEntries(Object.entries(d).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))),
}));

describe("canonicalJson", () => {
  it("property: the same text as the first definition, for JSON data of any key order", () => {
    fc.assert(
      fc.property(value.node, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 2000 },
    );
  });

  it("property: the same text for objects parsed from JSON (own `__proto__` keys) and for null-prototype objects", () => {
    fc.assert(
      fc.property(value.node, (v) => {
        const parsed: unknown = JSON.parse(JSON.stringify(v));
        expect(canonicalJson(parsed)).toBe(reference(parsed));
      }),
      { numRuns: 500 },
    );
    const parsed = JSON.parse('{"__proto__":{"b":1,"a":2},"a":[{"y":1,"x":2}],"b":{"c":1}}') as unknown;
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"a":2,"b":1},"a":[{"x":2,"y":1}],"b":{"c":1}}');
    const bare = Object.assign(Object.create(null) as object, { a: 1, b: { d: 1, c: 2 } });
    expect(canonicalJson(bare)).toBe('{"a":1,"b":{"c":2,"d":1}}');
  });

  it("keys integer-like keys in their enumeration order, as the copy did, and leaves objects of other kinds to the copy", () => {
    expect(canonicalJson({ 9: "a", 10: "b", x: 1 })).toBe(reference({ 9: "a", 10: "b", x: 1 }));
    expect(canonicalJson({ a: new Date(0), b: new Map([["k", 1]]) })).toBe(reference({ a: new Date(0), b: new Map([["k", 1]]) }));
    const items = Array.from({ length: 3 }, (_, i) => ({ secretKey: `K${i}` }));
    expect(canonicalJson({ secretCount: 3, secrets: items })).toBe('{"secretCount":3,"secrets":[{"secretKey":"K0"},{"secretKey":"K1"},{"secretKey":"K2"}]}');
  });
});
