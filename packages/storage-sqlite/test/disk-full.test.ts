import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { StorageUnavailableError, strongroomSchema } from "@strongroom/core/storage";
import { storageOver } from "../src/open.js";
import { tempDir } from "./temp-dir.js";

const dir = tempDir();

const user = (n: number) => ({
  id: `user-${n}`,
  email: `user-${n}@example.com`,
  username: `user-${n}@example.com`,
  isEmailVerified: false,
  firstName: "x".repeat(2_000),
  lastName: "",
  passwordHash: "",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

/**
 * A full disk, made by capping the file's pages: the transaction that hits it fails with the
 * reason (not with "cannot rollback - no transaction is active"), leaves nothing behind, and the
 * storage goes on serving reads and smaller writes.
 */
it("reports a full disk as such and stays usable", async () => {
  const database = new Database(join(dir, "full.db"));
  database.pragma("journal_mode = WAL");
  const storage = await storageOver(database, strongroomSchema);
  try {
    await storage.tables.users.insert(user(0));
    database.pragma(`max_page_count = ${(database.pragma("page_count", { simple: true }) as number) + 4}`);
    const outcome = storage.transaction(async (tx) => {
      for (let n = 1; n <= 50; n++) await tx.tables.users.insert(user(n));
    });
    await expect(outcome).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(outcome).rejects.toMatchObject({ reason: "The database's disk is full" });
    expect(await storage.tables.users.count()).toBe(1);
    await storage.tables.users.update({ id: "user-0" }, { lastName: "still writable" });
    expect((await storage.tables.users.get("user-0"))?.lastName).toBe("still writable");
  } finally {
    await storage.close();
  }
});
