import { describe, expect, it } from "vitest";
import { defineTable, integer, json, text, timestamp, boolean as booleanColumn, type TableDef } from "../storage/columns.js";
import { strongroomSchema as schema, SCHEMA_VERSION } from "../schema.js";
import { organizations } from "../tenancy/tables.js";
import type { Schema, Storage as PortStorage, Table } from "../storage/table.js";
import type { StrongroomStorage as Storage } from "../schema.js";
import { sampleRow } from "./sample-rows.js";

/**
 * Opens one particular database with the given table definitions, migrating it to `version`.
 * `indexNames` lists the database's indexes, for the checks the port cannot see.
 */
export type MigratingOpener = (<S extends Schema>(schema: S, version?: number) => Promise<PortStorage<S>>) & { indexNames?: () => Promise<string[]> };

export interface MigrationContractOptions {
  skip?: boolean;
  /**
   * Whether one process may open the same database several times at once. False for SQLite:
   * better-sqlite3 waits for a lock synchronously, blocking the event loop the holder needs to
   * finish, so the adapter tests concurrent opens from separate processes instead.
   */
  parallelOpens?: boolean;
}

const NEXT = SCHEMA_VERSION + 1;

/** Core's schema as the next release might declare it: new columns on a table, and a new table. */
const nextSchema = {
  ...schema,
  organizations: defineTable(
    "organizations",
    {
      ...organizations.columns,
      plan: text().at(NEXT),
      seats: integer().at(NEXT),
      trial: booleanColumn().at(NEXT),
      settings: json<Record<string, unknown> | null>().at(NEXT),
      renewsAt: timestamp().at(NEXT),
      note: text().null().at(NEXT),
    },
    { unique: [["slug"]], indexes: [["plan"]] },
  ),
  widgets: defineTable("widgets", { id: text(), orgId: text(), label: text() }, { unique: [["orgId", "label"]], since: NEXT }),
};

type AnyTable = Table<{ id: string } & Record<string, unknown>>;
const table = (storage: Storage, key: string) => (storage.tables as unknown as Record<string, AnyTable>)[key];

/**
 * What every SQL adapter's migrations must do. `fresh` returns an opener bound to a new, empty
 * database; each test opens that database several times, as successive releases would.
 */
export function runMigrationContract(name: string, fresh: () => Promise<MigratingOpener>, options: MigrationContractOptions = {}): void {
  describe.skipIf(options.skip ?? false)(`migrations: ${name}`, () => {
    it("data survives closing and reopening", async () => {
      const open = await fresh();
      const first = await open(schema);
      await first.tables.organizations.insert(sampleRow(organizations, 1));
      await first.close();

      const second = await open(schema);
      expect(await second.tables.organizations.get(sampleRow(organizations, 1).id)).toEqual(sampleRow(organizations, 1));
      await second.close();
    });

    it("a release that adds columns and a table migrates the existing database on open", async () => {
      const open = await fresh();
      const before = await open(schema);
      await before.tables.organizations.insert(sampleRow(organizations, 1));
      await before.close();

      const after = await open(nextSchema, NEXT);
      const orgs = table(after, "organizations");
      expect(await orgs.get(sampleRow(organizations, 1).id)).toEqual({
        ...sampleRow(organizations, 1),
        plan: "",
        seats: 0,
        trial: false,
        settings: null,
        renewsAt: new Date(0).toISOString(),
        note: null,
      });
      const added = sampleRow(nextSchema.organizations, 2);
      await orgs.insert(added);
      expect(await orgs.findOne({ plan: added.plan })).toEqual(added);

      const widgets = table(after, "widgets");
      await widgets.insert({ id: "w1", orgId: "o1", label: "a" });
      await expect(widgets.insert({ id: "w2", orgId: "o1", label: "a" })).rejects.toMatchObject({ columns: ["orgId", "label"] });
      await after.close();
    });

    it("a table or column declared without a version bump is still added", async () => {
      const open = await fresh();
      await (await open(schema)).close();
      const amended = {
        ...schema,
        organizations: defineTable("organizations", { ...organizations.columns, region: text() }, { unique: [["slug"]], indexes: [["region"]] }),
        gadgets: defineTable("gadgets", { id: text(), size: integer() }),
      };
      const reopened = await open(amended, SCHEMA_VERSION);
      const row = sampleRow(amended.organizations, 1);
      await table(reopened, "organizations").insert(row);
      expect(await table(reopened, "organizations").findOne({ region: row.region })).toEqual(row);
      await table(reopened, "gadgets").insert({ id: "g1", size: 3 });
      expect(await table(reopened, "gadgets").get("g1")).toEqual({ id: "g1", size: 3 });
      await reopened.close();
    });

    it("a node still running the previous release can open a migrated database", async () => {
      const open = await fresh();
      await (await open(nextSchema, NEXT)).close();
      const older = await open(schema);
      await older.tables.organizations.insert(sampleRow(organizations, 3));
      expect(await older.tables.organizations.count()).toBe(1);
      await older.close();

      const newer = await open(nextSchema, NEXT);
      expect(await table(newer, "organizations").get(sampleRow(organizations, 3).id)).toMatchObject({ plan: "", note: null });
      await newer.close();
    });

    it("a release that retires an index drops it on open; rows and lookups stay, and the previous release still opens", async () => {
      const open = await fresh();
      const gauges = (retired: boolean) =>
        defineTable("gauges", { id: text(), site: text(), level: integer() }, retired ? { retiredIndexes: [{ columns: ["site"], at: NEXT }] } : { indexes: [["site"]] });
      const siteIndexes = async () => (await open.indexNames!()).filter((name) => name.startsWith("gauges_site"));
      const before = await open({ ...schema, gauges: gauges(false) });
      await table(before as unknown as Storage, "gauges").insert({ id: "g1", site: "north", level: 3 });
      await before.close();
      if (open.indexNames) expect(await siteIndexes()).toHaveLength(1);

      const after = await open({ ...schema, gauges: gauges(true) }, NEXT);
      expect(await table(after as unknown as Storage, "gauges").findOne({ site: "north" })).toEqual({ id: "g1", site: "north", level: 3 });
      await after.close();
      if (open.indexNames) expect(await siteIndexes()).toEqual([]);

      // The previous release puts it back; the next newer start drops it again.
      await (await open({ ...schema, gauges: gauges(false) })).close();
      await (await open({ ...schema, gauges: gauges(true) }, NEXT)).close();
      if (open.indexNames) expect(await siteIndexes()).toEqual([]);
    });

    it.skipIf(options.parallelOpens === false)("several nodes opening a new database at once all succeed", async () => {
      const open = await fresh();
      const opened = await Promise.all(Array.from({ length: 4 }, () => open(nextSchema, NEXT)));
      await table(opened[0], "widgets").insert({ id: "w1", orgId: "o1", label: "a" });
      for (const storage of opened) expect(await table(storage, "widgets").count()).toBe(1);
      await Promise.all(opened.map((storage) => storage.close()));
    });
  });
}
