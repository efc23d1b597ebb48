import { defineTable, integer, text, UniqueViolationError } from "@strongroom/core/storage";
import pg_ from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../src/dialect.js";
import { openPostgres } from "../src/storage.js";
import { withPostgres } from "../src/testing.js";

const pg = await withPostgres();
afterAll(() => pg.drop());

const schema = { items: defineTable("items", { id: text(), n: integer(), label: text() }) };

/** Parameter counts of the multi-row statements every connection sends. */
const sent: number[] = [];
class CountingClient extends pg_.Client {
  override query(...args: any[]): any {
    const [config, values] = args;
    const count = Array.isArray(values) ? values.length : Array.isArray(config?.values) ? config.values.length : 0;
    if (count > 100) sent.push(count);
    return (super.query as (...a: any[]) => any)(...args);
  }
}

const ROWS = 3_000;
const rows = (from = 0) => Array.from({ length: ROWS }, (_, i) => ({ id: `item-${from + i}`, n: i, label: `label ${i}` }));

describe.skipIf(!pg.available)("multi-row writes on PostgreSQL", () => {
  it("split into statements of at most parametersPerStatement, each short for the event loop, and all land", async () => {
    const storage = await openPostgres({ connectionString: pg.url, pool: { Client: CountingClient as any } }, schema);
    try {
      sent.length = 0;
      await storage.tables.items.insertMany(rows());
      expect(sent.length).toBeGreaterThanOrEqual(Math.ceil((ROWS * 3) / postgresDialect.parametersPerStatement!));
      expect(Math.max(...sent)).toBeLessThanOrEqual(postgresDialect.parametersPerStatement!);
      expect(await storage.tables.items.count()).toBe(ROWS);

      sent.length = 0;
      const changed = await storage.tables.items.updateMany(rows().map((row) => ({ id: row.id, expect: { n: row.n }, patch: { label: "changed" } })));
      expect(changed).toBe(ROWS);
      expect(sent.length).toBeGreaterThan(1);
      expect(Math.max(...sent)).toBeLessThanOrEqual(postgresDialect.parametersPerStatement!);
      expect(await storage.tables.items.count({ label: "changed" })).toBe(ROWS);
    } finally {
      await storage.close();
    }
  });

  it("stay all or nothing when a later statement fails, in a transaction or not", async () => {
    const storage = await openPostgres({ connectionString: pg.url }, { other: defineTable("other", { id: text(), n: integer(), label: text() }) });
    try {
      const table = storage.tables.other;
      // The duplicate is in the last statement: the earlier ones must be undone.
      const batch = [...rows(), { id: "item-0", n: 0, label: "again" }];
      await expect(table.insertMany(batch)).rejects.toBeInstanceOf(UniqueViolationError);
      expect(await table.count()).toBe(0);

      await table.insert({ id: "kept", n: 1, label: "kept" });
      await expect(
        storage.transaction(async (tx) => {
          await tx.tables.other.insertMany(batch);
        }),
      ).rejects.toBeInstanceOf(UniqueViolationError);
      expect(await table.count()).toBe(1);

      // A transaction that catches the failure goes on, with none of the batch's rows.
      await storage.transaction(async (tx) => {
        await expect(tx.tables.other.insertMany(batch)).rejects.toBeInstanceOf(UniqueViolationError);
        await tx.tables.other.insert({ id: "after", n: 2, label: "after" });
      });
      expect((await table.find({}, { orderBy: [["id", "asc"]] })).map((row) => row.id)).toEqual(["after", "kept"]);
    } finally {
      await storage.close();
    }
  });
});
