import { type FindOptions, type Table, type TableDef, UniqueViolationError, type Where } from "@strongroom/core";
import type { Kysely } from "kysely";
import { columnOf, decodeRow, encodePatch, encodeRow } from "./codec.js";
import type { Scope } from "./scope.js";
import { hasConditions, whereClause } from "./where.js";

type Row = { id: string } & Record<string, unknown>;

/** The port's `Table`, once, for every table and every Kysely dialect. */
export function kyselyTable(def: TableDef, scope: Scope): Table<Row> {
  const { dialect } = scope;
  const columns = Object.keys(def.columns);
  const filtered = <Q extends { where(...args: any[]): any }>(query: Q, where: Where<Row> | undefined): Q =>
    hasConditions(where) ? query.where(whereClause(def, where, dialect)) : query;
  const select = (db: Kysely<any>, where: Where<Row> | undefined) => filtered(db.selectFrom(def.name).select(columns), where);

  /** Unique violations surface as core's error, whichever driver raised them. */
  const write = async <T>(fn: (db: Kysely<any>) => Promise<T>, statements: "one" | "several"): Promise<T> => {
    try {
      return await scope.atomic(fn, statements);
    } catch (error) {
      const violated = dialect.uniqueViolation(error, def);
      throw violated ? new UniqueViolationError(def.name, violated) : error;
    }
  };

  const find = (where?: Where<Row>, options: FindOptions<Row> = {}) =>
    scope.run(async (db) => {
      let query = select(db, where);
      for (const [name, direction] of options.orderBy ?? []) {
        columnOf(def, name);
        // NULL sorts as the smallest value on every backend (PostgreSQL's default is the opposite).
        query = query.orderBy(name, (order) => (direction === "desc" ? order.desc().nullsLast() : order.asc().nullsFirst()));
      }
      // SQLite accepts OFFSET only after a LIMIT.
      const limit = options.limit ?? (options.offset ? Number.MAX_SAFE_INTEGER : undefined);
      if (limit !== undefined) query = query.limit(limit);
      if (options.offset) query = query.offset(options.offset);
      const rows = await query.execute();
      return rows.map((raw) => decodeRow(def, raw));
    });

  const count = (where?: Where<Row>) =>
    scope.run(async (db) => {
      const query = filtered(db.selectFrom(def.name).select((eb) => eb.fn.countAll().as("n")), where);
      const { n } = await query.executeTakeFirstOrThrow();
      return Number(n);
    });

  const insertMany = async (rows: Row[]) => {
    if (rows.length === 0) return;
    const encoded = rows.map((row) => encodeRow(def, row, dialect));
    const perStatement = Math.max(1, Math.floor(dialect.maxParameters / columns.length));
    const chunks: Record<string, unknown>[][] = [];
    for (let i = 0; i < encoded.length; i += perStatement) chunks.push(encoded.slice(i, i + perStatement));
    await write(
      async (db) => {
        for (const chunk of chunks) await db.insertInto(def.name).values(chunk).execute();
      },
      chunks.length > 1 ? "several" : "one",
    );
  };

  return {
    def,
    insert: (row) => insertMany([row]),
    insertMany,
    get: (id) => find({ id }, { limit: 1 }).then((rows) => rows[0]),
    findOne: (where) => find(where, { limit: 1 }).then((rows) => rows[0]),
    find,
    count,
    async update(where, patch) {
      const changes = encodePatch(def, patch, dialect);
      if (Object.keys(changes).length === 0) return count(where);
      const result = await write(
        (db) => filtered(db.updateTable(def.name).set(changes), where).executeTakeFirst(),
        "one",
      );
      return Number(result.numUpdatedRows);
    },
    async delete(where) {
      const result = await scope.run((db) => filtered(db.deleteFrom(def.name), where).executeTakeFirst());
      return Number(result.numDeletedRows);
    },
  };
}
