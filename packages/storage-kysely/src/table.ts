import { type FindOptions, type RowChange, type Table, type TableDef, UniqueViolationError, type Where } from "@strongroom/core/storage";
import { type Compilable, type Kysely, sql } from "kysely";
import { columnOf, decodeRow, encodePatch, encodeRowInto } from "./codec.js";
import { CompiledCache } from "./compiled-cache.js";
import { forEachPaced } from "./paced.js";
import type { Scope } from "./scope.js";
import { hasConditions, whereClause } from "./where.js";
import { whereParams } from "./where-params.js";

type Row = { id: string } & Record<string, unknown>;

/** What every scope (the database, each transaction) of one table shares: its compiled statements. */
export interface TableStatements {
  readonly def: TableDef;
  readonly cache: CompiledCache;
}

export const tableStatements = (def: TableDef): TableStatements => ({ def, cache: new CompiledCache() });

/**
 * The port's `Table`, once, for every table and every Kysely dialect. Every statement is keyed by
 * its shape (see where-params.ts) and built with Kysely only the first time that shape is seen.
 */
export function kyselyTable({ def, cache }: TableStatements, scope: Scope): Table<Row> {
  const { dialect } = scope;
  const columns = Object.keys(def.columns);
  const filtered = <Q extends { where(...args: any[]): any }>(query: Q, where: Where<Row> | undefined): Q =>
    hasConditions(where) ? query.where(whereClause(def, where, dialect)) : query;

  /** Runs a write statement of a known shape in the scope's turn. */
  const execute = (db: Kysely<any>, key: string, params: unknown[], build: () => Compilable) =>
    db.executeQuery<Record<string, unknown>>(cache.compile(key, params, build));

  /** Unique violations surface as core's error, whichever driver raised them. */
  const write = async <T>(fn: (db: Kysely<any>) => Promise<T>, statements: "one" | "several"): Promise<T> => {
    try {
      return await scope.atomic(fn, statements);
    } catch (error) {
      const violated = dialect.uniqueViolation(error, def);
      throw violated ? new UniqueViolationError(def.name, violated) : error;
    }
  };

  /** Rows of `width` parameters each that one multi-row statement carries. */
  const rowsPerStatement = (width: number) => Math.max(1, Math.floor((dialect.parametersPerStatement ?? dialect.maxParameters) / width));

  const lockRows = (options: FindOptions<Row>) => options.forUpdate === true && scope.inTransaction && dialect.rowLocks;

  const selectQuery = (where: Where<Row> | undefined, options: FindOptions<Row>, limit: number | undefined) => {
    let query = filtered(scope.db.selectFrom(def.name).select(columns), where);
    for (const [name, direction] of options.orderBy ?? []) {
      // NULL sorts as the smallest value on every backend (PostgreSQL's default is the opposite).
      query = query.orderBy(name, (order) => (direction === "desc" ? order.desc().nullsLast() : order.asc().nullsFirst()));
    }
    if (limit !== undefined) query = query.limit(limit);
    if (options.offset) query = query.offset(options.offset);
    if (lockRows(options)) query = query.forUpdate();
    return query;
  };

  const find = async (where?: Where<Row>, options: FindOptions<Row> = {}) => {
    const { key, params } = whereParams(def, where, dialect);
    let shape = `select ${key}`;
    for (const [name, direction] of options.orderBy ?? []) {
      columnOf(def, name);
      shape += ` ${name} ${direction}`;
    }
    // SQLite accepts OFFSET only after a LIMIT.
    const limit = options.limit ?? (options.offset ? Number.MAX_SAFE_INTEGER : undefined);
    if (limit !== undefined) {
      shape += " limit";
      params.push(limit);
    }
    if (options.offset) {
      shape += " offset";
      params.push(options.offset);
    }
    if (lockRows(options)) shape += " for update";
    return scope.read(cache.compile(shape, params, () => selectQuery(where, options, limit)), (raw) => decodeRow(def, raw) as Row);
  };

  const count = async (where?: Where<Row>) => {
    const { key, params } = whereParams(def, where, dialect);
    const rows = await scope.read(
      cache.compile(`count ${key}`, params, () => filtered(scope.db.selectFrom(def.name).select((eb) => eb.fn.countAll().as("n")), where)),
    );
    return Number(rows[0].n);
  };

  const insertMany = async (rows: Row[]) => {
    if (rows.length === 0) return;
    const perStatement = rowsPerStatement(columns.length);
    // Each statement's parameters: its rows' values, row after row, as the compiled insert binds them.
    const chunks: { rows: Row[]; params: unknown[] }[] = [];
    await forEachPaced(rows, (row, i) => {
      if (i % perStatement === 0) chunks.push({ rows: rows.slice(i, i + perStatement), params: [] });
      encodeRowInto(chunks[chunks.length - 1].params, def, row, dialect);
    });
    const encoded = (chunk: Row[], params: unknown[]) =>
      chunk.map((_, r) => Object.fromEntries(columns.map((name, c) => [name, params[r * columns.length + c]])));
    await write(
      async (db) => {
        for (const chunk of chunks) {
          await execute(db, `insert ${chunk.rows.length}`, chunk.params, () => db.insertInto(def.name).values(encoded(chunk.rows, chunk.params)));
        }
      },
      chunks.length > 1 ? "several" : "one",
    );
  };

  /**
   * `with v(c0, c1, …) as (values (…), (…)) update t set a = v.c2, … from v where t.id = v.c0 and
   * t.version = v.c1`: the changes of one shape (the columns they expect and set), as many rows a
   * statement as its parameters allow. SQLite has run UPDATE … FROM since 3.33.
   */
  const updateMany = async (changes: readonly RowChange<Row>[]) => {
    // Each shape's parameters, row after row, as its statements bind them: no array per row.
    const shapes = new Map<string, { expect: string[]; set: string[]; params: unknown[]; rows: number }>();
    await forEachPaced(changes, (change) => {
      const expect = encodePatch(def, (change.expect ?? {}) as Record<string, unknown>, dialect);
      const patch = encodePatch(def, change.patch as Record<string, unknown>, dialect);
      const expectNames = Object.keys(expect);
      const setNames = Object.keys(patch);
      if (setNames.length === 0) throw new Error(`updateMany of ${def.name}: a change sets no column`);
      const key = `${expectNames.join(",")}|${setNames.join(",")}`;
      let group = shapes.get(key);
      if (!group) shapes.set(key, (group = { expect: expectNames, set: setNames, params: [], rows: 0 }));
      group.params.push(change.id);
      for (const name of expectNames) group.params.push(expect[name]);
      for (const name of setNames) group.params.push(patch[name]);
      group.rows++;
    });
    if (shapes.size === 0) return 0;
    return write(async (db) => {
      let changed = 0;
      for (const [key, group] of shapes) {
        const columnNames = ["id", ...group.expect, ...group.set];
        const width = columnNames.length;
        const types = columnNames.map((name) => sql.raw(dialect.parameterType(columnOf(def, name).kind)));
        const perStatement = rowsPerStatement(width);
        for (let from = 0; from < group.rows; from += perStatement) {
          const count = Math.min(perStatement, group.rows - from);
          const params = count === group.rows ? group.params : group.params.slice(from * width, (from + count) * width);
          const build = () => {
            const rows = Array.from({ length: count }, (_, r) => params.slice(r * width, (r + 1) * width));
            const v = sql.join(columnNames.map((_, i) => sql.id(`c${i}`)));
            const values = sql.join(rows.map((row) => sql`(${sql.join(row.map((value, i) => sql`cast(${value} as ${types[i]})`))})`));
            const assignments = sql.join(group.set.map((name, i) => sql`${sql.id(name)} = v.${sql.id(`c${1 + group.expect.length + i}`)}`));
            const conditions = [sql`${sql.id(def.name)}.${sql.id("id")} = v.${sql.id("c0")}`];
            group.expect.forEach((name, i) => conditions.push(sql`${sql.id(def.name)}.${sql.id(name)} = v.${sql.id(`c${1 + i}`)}`));
            const query = sql`with v (${v}) as (values ${values}) update ${sql.id(def.name)} set ${assignments} from v where ${sql.join(conditions, sql` and `)}`;
            return { compile: () => query.compile(db) };
          };
          const result = await execute(db, `updateMany ${key} ${count}`, params, build);
          changed += Number(result.numAffectedRows ?? 0);
        }
      }
      return changed;
    }, "several");
  };

  return {
    def,
    updateMany,
    insert: (row) => insertMany([row]),
    insertMany,
    get: (id) => find({ id }, { limit: 1 }).then((rows) => rows[0]),
    findOne: (where) => find(where, { limit: 1 }).then((rows) => rows[0]),
    find,
    count,
    async update(where, patch) {
      const changes = encodePatch(def, patch, dialect);
      const names = Object.keys(changes);
      if (names.length === 0) return count(where);
      const { key, params } = whereParams(def, where, dialect);
      const result = await write(
        (db) =>
          execute(db, `update ${names.join(",")} ${key}`, [...Object.values(changes), ...params], () =>
            filtered(db.updateTable(def.name).set(changes), where),
          ),
        "one",
      );
      return Number(result.numAffectedRows ?? 0);
    },
    async delete(where) {
      const { key, params } = whereParams(def, where, dialect);
      const result = await scope.run((db) => execute(db, `delete ${key}`, params, () => filtered(db.deleteFrom(def.name), where)));
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
