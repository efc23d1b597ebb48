import { describe, expect, it } from "vitest";
import { RevisionCache } from "../src/answers/revision-cache.js";

const bytes = (n: number) => Buffer.alloc(n, 1);

describe("answers kept by revision", () => {
  it("keep within their byte budget, the oldest leaving first", () => {
    const cache = new RevisionCache(100, 1_000);
    cache.set("a", bytes(20), 0);
    cache.set("b", bytes(20), 1);
    cache.set("c", bytes(20), 2);
    cache.set("d", bytes(20), 3);
    cache.set("e", bytes(20), 4);
    cache.set("f", bytes(20), 5);
    expect(cache.get("a", 6)).toBeUndefined();
    expect(cache.get("f", 6)?.length).toBe(20);
    expect(cache.size).toBe(5);
  });

  it("are not served past their age, and one answer never takes more than a quarter of the budget", () => {
    const cache = new RevisionCache(100, 1_000);
    cache.set("a", bytes(20), 0);
    expect(cache.get("a", 999)).toBeDefined();
    expect(cache.get("a", 1_000)).toBeUndefined();
    cache.set("big", bytes(26), 0);
    expect(cache.get("big", 1)).toBeUndefined();
  });
});
