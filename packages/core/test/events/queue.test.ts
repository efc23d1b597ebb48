import { describe, expect, it } from "vitest";
import { BoundedQueue } from "../../src/events/queue.js";

describe("BoundedQueue", () => {
  it("hands items over in order, and directly to a waiting consumer", async () => {
    const queue = new BoundedQueue<number>(3);
    const waiting = queue.take();
    expect(queue.push(1)).toBe(true);
    expect(await waiting).toBe(1);
    queue.push(2);
    queue.push(3);
    expect([await queue.take(), await queue.take()]).toEqual([2, 3]);
  });

  it("refuses items past its bound", () => {
    const queue = new BoundedQueue<number>(2);
    expect([queue.push(1), queue.push(2), queue.push(3)]).toEqual([true, true, false]);
    expect(queue.size).toBe(2);
  });

  it("after finish, yields what is queued, then the last item, then ends", async () => {
    const queue = new BoundedQueue<string>(1);
    queue.push("a");
    queue.finish("last");
    expect(queue.push("late")).toBe(false);
    expect([await queue.take(), await queue.take(), await queue.take()]).toEqual(["a", "last", undefined]);
  });

  it("finish wakes a waiting consumer", async () => {
    const queue = new BoundedQueue<string>(1);
    const waiting = queue.take();
    queue.finish();
    expect(await waiting).toBeUndefined();
  });

  it("drop forgets what it holds and ends a waiting consumer", async () => {
    const queue = new BoundedQueue<number>(5);
    queue.push(1);
    queue.drop();
    expect(await queue.take()).toBeUndefined();
    const other = new BoundedQueue<number>(5);
    const waiting = other.take();
    other.drop();
    expect(await waiting).toBeUndefined();
  });

  it("has a single consumer", async () => {
    const queue = new BoundedQueue<number>(5);
    void queue.take();
    await expect(queue.take()).rejects.toThrow(/single consumer/);
  });
});
