import { describe, expect, it } from "vitest";
import { UniqueViolationError } from "../../storage/table.js";
import { type StorageUnderTest, ids, user } from "./fixtures.js";

export function transactionTests(storage: StorageUnderTest): void {
  describe("transactions", () => {
    it("commits every write together and returns the callback's value", async () => {
      const { tables } = storage();
      await tables.users.insert(user(9));
      const result = await storage().transaction(async (tx) => {
        await tx.tables.users.insert(user(1));
        await tx.tables.users.insertMany([user(2), user(3)]);
        await tx.tables.users.update({ id: user(1).id }, { firstName: "Committed" });
        await tx.tables.users.delete({ id: user(9).id });
        expect(await tx.tables.users.count()).toBe(3);
        return "done";
      });
      expect(result).toBe("done");
      expect(ids(await tables.users.find({}, { orderBy: [["id", "asc"]] }))).toEqual([user(1).id, user(2).id, user(3).id]);
      expect((await tables.users.get(user(1).id))!.firstName).toBe("Committed");
    });

    it("serializes read-modify-writes of rows read for update", async () => {
      const { tables } = storage();
      await tables.users.insert({ ...user(1), firstName: "0" });
      // Each transaction reads the counter for update, then writes it back incremented: were the
      // reads not serialized, two would read the same value and one increment would be lost.
      const increment = () =>
        storage().transaction(async (tx) => {
          const [row] = await tx.tables.users.find({ id: user(1).id }, { forUpdate: true });
          await tx.tables.users.update({ id: row.id }, { firstName: String(Number(row.firstName) + 1) });
        });
      await Promise.all(Array.from({ length: 8 }, increment));
      expect((await tables.users.get(user(1).id))!.firstName).toBe("8");
      // Outside a transaction a read for update is a plain read.
      expect(ids(await tables.users.find({}, { forUpdate: true }))).toEqual([user(1).id]);
    });

    it("commits both of two transactions that lock two rows in opposite orders (a deadlock is run again)", async () => {
      const { tables } = storage();
      await tables.users.insertMany([{ ...user(1), firstName: "0" }, { ...user(2), firstName: "0" }]);
      // Each holds its first row until the other holds its own (or a short wait passes, where
      // the store runs one transaction at a time), then asks for the other's: on PostgreSQL one is
      // aborted as a deadlock, and must be run again rather than fail.
      let locked = 0;
      let bothLocked: () => void = () => undefined;
      const meeting = new Promise<void>((resolve) => (bothLocked = resolve));
      const crosswise = (first: number, second: number) =>
        storage().transaction(async (tx) => {
          for (const n of [first, second]) {
            const [row] = await tx.tables.users.find({ id: user(n).id }, { forUpdate: true });
            await tx.tables.users.update({ id: row.id }, { firstName: String(Number(row.firstName) + 1) });
            if (n === first) {
              if (++locked === 2) bothLocked();
              await Promise.race([meeting, new Promise((resolve) => setTimeout(resolve, 300))]);
            }
          }
        });
      await Promise.all([crosswise(1, 2), crosswise(2, 1)]);
      expect((await tables.users.find({}, { orderBy: [["id", "asc"]] })).map((row) => row.firstName)).toEqual(["2", "2"]);
    });

    it("rolls back every write when the callback throws, and rethrows the same error", async () => {
      const { tables } = storage();
      await tables.users.insertMany([user(1), user(2)]);
      const failure = new Error("boom");
      const outcome = storage().transaction(async (tx) => {
        await tx.tables.users.insert(user(3));
        await tx.tables.users.update({ id: user(1).id }, { firstName: "Changed" });
        await tx.tables.users.delete({ id: user(2).id });
        await tx.tables.organizations.insert({ id: "org-1", name: "n", slug: "s", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z" });
        throw failure;
      });
      await expect(outcome).rejects.toBe(failure);
      expect(await tables.users.find({}, { orderBy: [["id", "asc"]] })).toEqual([user(1), user(2)]);
      expect(await tables.organizations.count()).toBe(0);
    });

    it("a nested transaction joins the outer one: it sees its writes and rolls back with it", async () => {
      const { tables } = storage();
      const inner = await storage().transaction(async (tx) => {
        await tx.tables.users.insert(user(1));
        return tx.transaction(async (nested) => {
          expect(await nested.tables.users.get(user(1).id)).toEqual(user(1));
          await nested.tables.users.insert(user(2));
          return "inner";
        });
      });
      expect(inner).toBe("inner");
      expect(await tables.users.count()).toBe(2);

      await expect(
        storage().transaction(async (tx) => {
          await tx.transaction(async (nested) => nested.tables.users.insert(user(3)));
          await tx.tables.users.insert(user(4));
          throw new Error("outer fails after the nested one finished");
        }),
      ).rejects.toThrow("outer fails");
      expect(await tables.users.count()).toBe(2);
    });

    it("a write that fails inside a transaction can be caught; the rest still commits", async () => {
      const { tables } = storage();
      await tables.users.insert(user(1));
      await storage().transaction(async (tx) => {
        await tx.tables.users.insert(user(2));
        await expect(tx.tables.users.insert(user(3, { email: user(1).email }))).rejects.toBeInstanceOf(UniqueViolationError);
        const many = Array.from({ length: 4000 }, (_, i) => user(100 + i));
        many.push(user(5000, { username: user(2).username }));
        await expect(tx.tables.users.insertMany(many)).rejects.toBeInstanceOf(UniqueViolationError);
        await tx.tables.users.insert(user(4));
      });
      expect(ids(await tables.users.find({}, { orderBy: [["id", "asc"]] }))).toEqual([user(1).id, user(2).id, user(4).id]);
    });

    it("of 20 concurrent conditional updates exactly one matches", async () => {
      const { tables } = storage();
      await tables.accessTokens.insert({
        id: "token-1",
        tokenHash: "hash-1",
        actorType: "identity",
        actorId: "identity-1",
        orgId: null,
        expiresAt: "2027-01-01T00:00:00.000Z",
        numUsesLimit: 0,
        revokedAt: null,
        lastUsedAt: null,
        createdAt: "2026-01-01T00:00:00.000Z",
      });
      const claim = (i: number) =>
        tables.accessTokens.update({ id: "token-1", revokedAt: null }, { revokedAt: `2026-06-01T00:00:${String(i).padStart(2, "0")}.000Z` });
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => claim(i)));
      expect(results.filter((count) => count === 1)).toHaveLength(1);
      expect(results.filter((count) => count === 0)).toHaveLength(19);

      const winner = results.indexOf(1);
      expect((await tables.accessTokens.get("token-1"))!.revokedAt).toBe(`2026-06-01T00:00:${String(winner).padStart(2, "0")}.000Z`);
    });

    it("of 20 concurrent transactions claiming the same row exactly one succeeds", async () => {
      const { tables } = storage();
      await tables.jobLeases.insert({ id: "job-1", holder: "", expiresAt: "2026-01-01T00:00:00.000Z", lastRunAt: null });
      const attempt = (i: number) =>
        storage().transaction(async (tx) => {
          const claimed = await tx.tables.jobLeases.update({ id: "job-1", lastRunAt: null }, { holder: `node-${i}`, lastRunAt: "2026-01-01T00:00:00.000Z" });
          return claimed === 1 ? i : undefined;
        });
      const winners = (await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(i)))).filter((i) => i !== undefined);
      expect(winners).toHaveLength(1);
      expect((await tables.jobLeases.get("job-1"))!.holder).toBe(`node-${winners[0]}`);
    });
  });
}
