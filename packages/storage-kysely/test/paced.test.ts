import { describe, expect, it } from "vitest";
import { mapPaced } from "../src/paced.js";

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

describe("mapPaced", () => {
  it("maps a short list at once, without an await", () => {
    expect(mapPaced([1, 2, 3], (n) => n * 2)).toEqual([2, 4, 6]);
  });

  it("lets other work run while it maps a long list, and keeps the order", async () => {
    const items = Array.from({ length: 2_000 }, (_, i) => i);
    let turns = 0;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    let done = false;
    setImmediate(tick);
    const out = await mapPaced(items, (n) => {
      busy(0.01);
      return n + 1;
    });
    done = true;
    expect(out).toEqual(items.map((n) => n + 1));
    // ~20 ms of work in 4 ms slices: the other callback ran between them.
    expect(turns).toBeGreaterThan(1);
  });
});
