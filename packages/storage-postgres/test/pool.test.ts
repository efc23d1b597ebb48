import { createPostgresStorage } from "@strongroom/storage-postgres";
import type { StrongroomStorage as Storage } from "@strongroom/core/storage";
import { afterAll, describe, expect, it } from "vitest";
import { countSessions, terminateSessions, withPostgres } from "../src/testing.js";

const pg = await withPostgres();
afterAll(() => pg.drop());

const org = (id: string) => ({ id, name: id, slug: id, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z" });

/** A call made right after the server dropped connections may fail once; the one after must work. */
async function eventually<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch {
    return fn();
  }
}

/** Waits until the server has ended every session of the database we were told to terminate. */
async function terminateAll(url: string) {
  await terminateSessions(url);
  await expect.poll(() => countSessions(url), { timeout: 10_000 }).toBe(0);
}

describe.skipIf(!pg.available)("postgres connection pool", () => {
  it("survives the server ending every connection, idle or in a transaction, and keeps serving", async () => {
    const errors: Error[] = [];
    const storage: Storage = await createPostgresStorage({ connectionString: pg.url, onError: (error) => errors.push(error) });
    try {
      // Several idle connections in the pool.
      await Promise.all(Array.from({ length: 5 }, (_, i) => storage.tables.organizations.insert(org(`before-${i}`))));

      await terminateAll(pg.url);
      expect(await eventually(() => storage.tables.organizations.count())).toBe(5);

      // A connection checked out by a transaction, idle between two statements when it is cut.
      const cut = storage.transaction(async (tx) => {
        await tx.tables.organizations.insert(org("in-cut-transaction"));
        await terminateAll(pg.url);
        await tx.tables.organizations.insert(org("after-cut"));
      });
      await expect(cut).rejects.toThrow();

      await eventually(() => storage.tables.organizations.insert(org("after")));
      expect(await storage.tables.organizations.count()).toBe(6);
      expect(await storage.tables.organizations.get("in-cut-transaction")).toBeUndefined();
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      await storage.close();
    }
  });
});
