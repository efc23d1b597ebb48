import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { answerText, SLICED_ARRAY_MIN, slicedJson } from "../src/answers/sliced-json.js";

const big = (n: number, item: (i: number) => unknown) => Array.from({ length: n }, (_, i) => item(i));

describe("answers serialized in slices", () => {
  it.each([
    ["a small answer, at once", { secret: { id: "a", tags: [], value: "x" } }],
    ["a list of secrets", { secrets: big(1_000, (i) => ({ secretKey: `K_${i}`, secretValue: `v"\u2028${i}`, tags: [{ slug: "t" }] })), imports: [] }],
    ["big arrays nested in imports", { secrets: [], imports: big(3, (i) => ({ secretPath: `/p${i}`, secrets: big(SLICED_ARRAY_MIN + i, (j) => ({ j })) })) }],
    ["members JSON leaves out, elements it writes as null", { list: big(SLICED_ARRAY_MIN, (i) => (i % 3 === 0 ? undefined : i % 3 === 1 ? () => i : i)), gone: undefined, fn: () => 1 }],
    ["dates and objects with toJSON", { at: new Date(0), list: big(SLICED_ARRAY_MIN, (i) => ({ at: new Date(i), n: null })) }],
    ["a big array at the top", big(SLICED_ARRAY_MIN * 2, (i) => [i, `s${i}`, { deep: [i] }])],
  ])("writes exactly what JSON.stringify writes: %s", async (_, value) => {
    expect(await answerText(value)).toBe(JSON.stringify(value));
  });

  it("answers at once (no promise) when nothing needs slicing", () => {
    expect(typeof answerText({ secrets: big(SLICED_ARRAY_MIN - 1, (i) => i) })).toBe("string");
    expect(answerText({ secrets: big(SLICED_ARRAY_MIN, (i) => i) })).toBeInstanceOf(Promise);
  });

  it("matches JSON.stringify on any JSON value", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
        expect(await slicedJson(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 200 },
    );
  });

  it("lets other work run while it writes a big answer", async () => {
    const value = { secrets: big(50_000, (i) => ({ secretKey: `KEY_${i}`, secretValue: "x".repeat(200), tags: [], secretMetadata: [] })) };
    let otherWorkRan = false;
    setImmediate(() => (otherWorkRan = true));
    const text = await slicedJson(value);
    expect(otherWorkRan).toBe(true);
    expect(text.length).toBe(JSON.stringify(value).length);
  });
});
