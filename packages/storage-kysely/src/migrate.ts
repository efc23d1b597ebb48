import { type Column, type Schema, schemaVersion, type TableDef } from "@strongroom/core/storage";
import { type ColumnDefinitionBuilder, type Kysely, sql } from "kysely";
import type { Dialect } from "./dialect.js";
import { indexName } from "./names.js";

/** One row (id 1) recording the schema version the database was last migrated to. */
export const VERSION_TABLE = "strongroom_schema";

export interface MigrateOptions {
  /** Table definitions to migrate to. */
  schema: Schema;
  /** Version those definitions describe; by default the newest version any of them declares. */
  version?: number;
}

/**
 * Brings the database up to the declared schema in one transaction: creates missing tables with
 * all their columns, adds missing columns (those introduced after the recorded version, or
 * declared without a version bump during development), creates missing indexes, drops retired
 * ones, and records the version. It never removes a table or column, and never lowers the recorded
 * version, so a node still running the previous release can start against a database a newer node
 * has migrated (it may put a retired index back, which the next newer start drops again).
 */
export async function migrate(db: Kysely<any>, dialect: Dialect, options: MigrateOptions): Promise<void> {
  const { schema, version = schemaVersion(schema) } = options;
  await dialect.migrationTransaction(db, async (trx) => {
    await trx.schema
      .createTable(VERSION_TABLE)
      .ifNotExists()
      .addColumn("id", "integer", (column) => column.primaryKey())
      .addColumn("version", "integer", (column) => column.notNull())
      .addColumn("migratedAt", sql.raw(dialect.columnType("timestamp")), (column) => column.notNull())
      .execute();

    const tables = new Map<string, Set<string>>();
    for (const { tableName, columnName } of await dialect.listColumns(trx)) {
      tables.set(tableName, (tables.get(tableName) ?? new Set()).add(columnName));
    }
    const indexes = new Set(await dialect.listIndexes(trx));
    for (const def of Object.values(schema)) {
      const columns = tables.get(def.name);
      if (columns) await addMissingColumns(trx, dialect, def, columns);
      else await createTable(trx, dialect, def);
      await createMissingIndexes(trx, def, indexes);
      await dropRetiredIndexes(trx, def, indexes);
    }

    const stored = await trx.selectFrom(VERSION_TABLE).select("version").where("id", "=", 1).executeTakeFirst();
    if (stored && Number(stored.version) >= version) return;
    const migratedAt = new Date().toISOString();
    await trx
      .insertInto(VERSION_TABLE)
      .values({ id: 1, version, migratedAt })
      .onConflict((conflict) => conflict.column("id").doUpdateSet({ version, migratedAt }))
      .execute();
  });
}

async function createTable(db: Kysely<any>, dialect: Dialect, def: TableDef): Promise<void> {
  let builder = db.schema.createTable(def.name).ifNotExists();
  for (const [name, column] of Object.entries(def.columns)) {
    builder = builder.addColumn(name, sql.raw(dialect.columnType(column.kind)), (c) =>
      name === "id" ? c.primaryKey().notNull() : constraints(c, column, dialect, column.since > def.since),
    );
  }
  await builder.execute();
}

async function addMissingColumns(db: Kysely<any>, dialect: Dialect, def: TableDef, present: Set<string>): Promise<void> {
  for (const [name, column] of Object.entries(def.columns)) {
    if (present.has(name)) continue;
    await db.schema
      .alterTable(def.name)
      .addColumn(name, sql.raw(dialect.columnType(column.kind)), (c) => constraints(c, column, dialect, true))
      .execute();
  }
}

/**
 * A NOT NULL column added after its table needs a value for rows written before it existed, and
 * for inserts by nodes still running the previous release. It gets its kind's zero (empty text,
 * 0, false, JSON null, the epoch) as its default, whether the table is altered or created anew,
 * so every database ends up with the same shape.
 */
function constraints(c: ColumnDefinitionBuilder, column: Column, dialect: Dialect, addedLater: boolean): ColumnDefinitionBuilder {
  if (column.nullable) return c;
  return addedLater ? c.notNull().defaultTo(sql.lit(zero(column, dialect))) : c.notNull();
}

function zero(column: Column, dialect: Dialect): unknown {
  switch (column.kind) {
    case "text":
      return "";
    case "integer":
      return 0;
    case "boolean":
      return dialect.encodeBoolean(false);
    case "json":
      return "null";
    case "timestamp":
      return new Date(0).toISOString();
  }
}

async function createMissingIndexes(db: Kysely<any>, def: TableDef, existing: Set<string>): Promise<void> {
  const groups = [...def.unique.map((columns) => ({ columns, unique: true })), ...def.indexes.map((columns) => ({ columns, unique: false }))];
  for (const { columns, unique } of groups) {
    const name = indexName(def.name, columns, unique);
    if (existing.has(name)) continue;
    const builder = db.schema.createIndex(name).ifNotExists().on(def.name).columns([...columns]);
    await (unique ? builder.unique() : builder).execute();
  }
}

async function dropRetiredIndexes(db: Kysely<any>, def: TableDef, existing: Set<string>): Promise<void> {
  for (const { columns } of def.retiredIndexes) {
    const name = indexName(def.name, columns, false);
    if (existing.has(name)) await db.schema.dropIndex(name).ifExists().execute();
  }
}
