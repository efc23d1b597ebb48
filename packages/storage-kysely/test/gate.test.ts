import { describe, expect, it } from "vitest";
import { Gate } from "../src/gate.js";

describe("Gate", () => {
  it.each([1, 2, 8])("lets at most %i through at once and the rest in arrival order", async (limit) => {
    const gate = new Gate(limit);
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const runs = Array.from({ length: 20 }, (_, i) =>
      gate.through(async () => {
        order.push(i);
        most = Math.max(most, ++inside);
        await new Promise<void>((resolve) => releases.push(resolve));
        inside--;
      }),
    );
    // Release whoever is inside, one at a time, until everyone has been through.
    while (order.length < 20 || releases.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    await Promise.all(runs);
    expect(most).toBe(limit);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(gate.load).toEqual({ holders: 0, waiting: 0 });
  });

  it("frees the place of a holder that throws", async () => {
    const gate = new Gate(1);
    await expect(gate.through(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.through(async () => "next")).toBe("next");
  });

  it("refuses a limit below one", () => {
    expect(() => new Gate(0)).toThrow(/positive integer/);
  });
});
