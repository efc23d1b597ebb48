import { join } from "node:path";
import { defineTable, text } from "@strongroom/core/storage";
import { expect, it, vi } from "vitest";
import { openSqlite } from "../src/open.js";
import { tempDir } from "./temp-dir.js";

// Counts the worker threads the storage starts (the writer is the only one it has).
const threads = vi.hoisted(() => ({ started: 0 }));
vi.mock("node:worker_threads", async (original) => {
  const real = await original<typeof import("node:worker_threads")>();
  class CountedWorker extends real.Worker {
    constructor(...args: ConstructorParameters<typeof real.Worker>) {
      super(...args);
      threads.started++;
    }
  }
  return { ...real, Worker: CountedWorker };
});

const dir = tempDir();
const schema = { notes: defineTable("notes", { id: text(), body: text() }) };

it("opening and reading start no writer thread; the first write starts it, once, and it sees the migrated tables", async () => {
  const filename = join(dir, "lazy.db");
  const storage = await openSqlite(filename, schema, 1);
  try {
    expect(await storage.tables.notes.get("a")).toBeUndefined();
    expect(threads.started).toBe(0);
    await Promise.all([storage.tables.notes.insert({ id: "a", body: "one" }), storage.tables.notes.insert({ id: "b", body: "two" })]);
    await storage.transaction((tx) => tx.tables.notes.insert({ id: "c", body: "three" }));
    expect(threads.started).toBe(1);
    expect((await storage.tables.notes.get("c"))?.body).toBe("three");
  } finally {
    await storage.close();
  }
  // Reopened: the migrations find the tables there and need no writer either.
  const again = await openSqlite(filename, schema, 1);
  expect((await again.tables.notes.get("a"))?.body).toBe("one");
  await again.close();
  expect(threads.started).toBe(1);
});

it("a storage closed before any write closes without starting a thread", async () => {
  const before = threads.started;
  const storage = await openSqlite(join(dir, "unused.db"), schema, 1);
  await storage.close();
  expect(threads.started).toBe(before);
});
