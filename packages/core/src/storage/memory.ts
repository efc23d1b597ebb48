import type { ColumnKind, TableDef } from "./columns.js";
import { operatorOf, UniqueViolationError, type FindOptions, type Schema, type Storage, type Table, type TablesOf, type Where } from "./table.js";

/**
 * The in-memory adapter: the reference the SQL adapters are held to by the storage contract.
 * Its semantics deliberately copy SQL's where they are observable: NULL never equals anything,
 * a unique group containing a NULL never conflicts, `ne` also matches NULL (IS DISTINCT FROM),
 * NULLs sort first ascending, text compares by code point, and `contains` folds ASCII case only
 * (as SQLite's LIKE and PostgreSQL's ILIKE on "C"-collated columns do).
 */

type Row = { id: string } & Record<string, unknown>;
type Undo = () => void;


/** A transaction's undo log; `done` fences off a `tx` that escaped its callback. */
interface TxScope {
  readonly undo: Undo[];
  done: boolean;
}

/** A store of `schema`'s tables held in this process's memory, gone when it ends. */
export function createMemoryStore<S extends Schema>(schema: S): Storage<S> {
  const tables = new Map(Object.values(schema).map((def) => [def.name, new TableState(def)]));
  const lock = createMutex();
  let closed = false;

  function open(scope: TxScope | undefined): Storage<S> {
    // Outside a transaction every call waits its turn behind running transactions, so nobody
    // observes uncommitted writes; inside, calls run at once and record how to undo themselves.
    const run = <T>(fn: (undo: Undo[]) => T): Promise<T> => {
      if (closed) return Promise.reject(new Error("storage is closed"));
      if (!scope) return lock(() => atomically(fn));
      if (scope.done) return Promise.reject(new Error("transaction already finished"));
      return Promise.resolve().then(() => atomically(fn));
    };
    const atomically = <T>(fn: (undo: Undo[]) => T): T => {
      const undo: Undo[] = [];
      try {
        const value = fn(undo);
        if (scope) for (const step of undo) scope.undo.push(step);
        return value;
      } catch (error) {
        rollback(undo);
        throw error;
      }
    };

    const storage: Storage<S> = {
      kind: "memory",
      schema,
      inTransaction: scope !== undefined,
      tables: Object.fromEntries(
        Object.entries(schema).map(([key, def]) => [key, memoryTable(tables.get(def.name)!, run)]),
      ) as unknown as TablesOf<S>,
      transaction: scope
        ? (fn) => fn(storage)
        : (fn) =>
            lock(async () => {
              const inner: TxScope = { undo: [], done: false };
              try {
                return await fn(open(inner));
              } catch (error) {
                rollback(inner.undo);
                throw error;
              } finally {
                inner.done = true;
              }
            }),
      close: scope
        ? () => Promise.reject(new Error("close the storage, not a transaction"))
        : async () => {
            closed = true;
          },
    };
    return storage;
  }

  return open(undefined);
}

function rollback(undo: Undo[]): void {
  for (let i = undo.length - 1; i >= 0; i--) undo[i]();
}

/** Runs async sections one at a time, in call order. */
function createMutex() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => T | Promise<T>): Promise<T> => {
    const result = tail.then(fn);
    tail = result.catch(() => undefined);
    return result;
  };
}

type Runner = <T>(fn: (undo: Undo[]) => T) => Promise<T>;

function memoryTable(state: TableState, run: Runner): Table<Row> {
  const { def } = state;
  const matching = (where: Where<Row> | undefined) => {
    const test = compileWhere(def, where ?? {});
    return [...state.rows.values()].filter(test);
  };
  const insertAll = (rows: Row[], undo: Undo[]) => {
    for (const row of rows) undo.push(state.add(normalizeRow(def, row)));
  };

  return {
    def,
    insert: (row) => run((undo) => insertAll([row], undo)),
    insertMany: (rows) => run((undo) => insertAll(rows, undo)),
    get: (id) =>
      run(() => {
        const row = state.rows.get(id);
        return row && structuredClone(row);
      }),
    findOne: (where) => run(() => structuredClone(matching(where)[0])),
    find: (where, options) => run(() => structuredClone(page(def, matching(where), options))),
    count: (where) => run(() => matching(where).length),
    update: (where, patch) =>
      run((undo) => {
        const changes = normalizePatch(def, patch);
        const rows = matching(where);
        for (const row of rows) undo.push(state.replace(row, { ...row, ...structuredClone(changes) }));
        return rows.length;
      }),
    updateMany: (changes) =>
      run((undo) => {
        let changed = 0;
        for (const { id, expect, patch } of changes) {
          const row = state.rows.get(id);
          if (!row || !compileWhere(def, (expect ?? {}) as Where<Row>)(row)) continue;
          undo.push(state.replace(row, { ...row, ...structuredClone(normalizePatch(def, patch)) }));
          changed++;
        }
        return changed;
      }),
    delete: (where) =>
      run((undo) => {
        const rows = matching(where);
        for (const row of rows) undo.push(state.remove(row.id));
        return rows.length;
      }),
  };
}

/** One table's rows plus a key index per unique group; every change returns its own undo. */
class TableState {
  readonly rows = new Map<string, Row>();
  private readonly uniqueKeys: Map<string, string>[];

  constructor(readonly def: TableDef) {
    this.uniqueKeys = def.unique.map(() => new Map());
  }

  add(row: Row): Undo {
    if (this.rows.has(row.id)) throw new UniqueViolationError(this.def.name, ["id"]);
    const keys = this.def.unique.map((group) => uniqueKey(group, row));
    keys.forEach((key, i) => {
      if (key !== undefined && this.uniqueKeys[i].has(key)) {
        throw new UniqueViolationError(this.def.name, [...this.def.unique[i]]);
      }
    });
    this.rows.set(row.id, row);
    keys.forEach((key, i) => key !== undefined && this.uniqueKeys[i].set(key, row.id));
    return () => this.remove(row.id);
  }

  remove(id: string): Undo {
    const row = this.rows.get(id)!;
    this.rows.delete(id);
    this.def.unique.forEach((group, i) => {
      const key = uniqueKey(group, row);
      if (key !== undefined) this.uniqueKeys[i].delete(key);
    });
    return () => this.add(row);
  }

  replace(current: Row, next: Row): Undo {
    this.remove(current.id);
    try {
      this.add(next);
    } catch (error) {
      this.add(current);
      throw error;
    }
    return () => {
      this.remove(next.id);
      this.add(current);
    };
  }
}

/** Like SQL, a group with a NULL in it is never equal to another, so it is not indexed. */
function uniqueKey(group: readonly string[], row: Row): string | undefined {
  const values = group.map((column) => row[column]);
  return values.some((value) => value === null) ? undefined : JSON.stringify(values);
}

function normalizeRow(def: TableDef, row: Row): Row {
  rejectUnknownColumns(def, row);
  const out: Record<string, unknown> = {};
  for (const [name, column] of Object.entries(def.columns)) {
    const value = row[name] ?? null;
    if (value === null && !column.nullable) throw new Error(`${def.name}.${name} cannot be null`);
    out[name] = structuredClone(value);
  }
  return out as Row;
}

function normalizePatch(def: TableDef, patch: Record<string, unknown>): Record<string, unknown> {
  rejectUnknownColumns(def, patch);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null && !def.columns[name].nullable) throw new Error(`${def.name}.${name} cannot be null`);
    out[name] = value;
  }
  return out;
}

function rejectUnknownColumns(def: TableDef, values: object): void {
  for (const name of Object.keys(values)) {
    if (!(name in def.columns)) throw new Error(`${def.name} has no column ${name}`);
  }
}

function page(def: TableDef, rows: Row[], options: FindOptions<Row> = {}): Row[] {
  const order = options.orderBy ?? [];
  for (const [name] of order) rejectUnknownColumns(def, { [name]: true });
  const sorted = [...rows].sort((a, b) => {
    for (const [name, direction] of order) {
      const kind = def.columns[name].kind;
      const result = compare(kind, a[name], b[name]);
      if (result !== 0) return direction === "desc" ? -result : result;
    }
    return 0;
  });
  const start = options.offset ?? 0;
  return sorted.slice(start, options.limit === undefined ? undefined : start + options.limit);
}

function compileWhere(def: TableDef, where: Where<Row>): (row: Row) => boolean {
  const tests: ((row: Row) => boolean)[] = [];
  for (const [name, condition] of Object.entries(where)) {
    if (condition === undefined) continue;
    if (name === "$or") {
      const groups = (condition as Where<Row>[]).map((group) => compileWhere(def, group));
      tests.push((row) => groups.some((test) => test(row)));
      continue;
    }
    rejectUnknownColumns(def, { [name]: true });
    const kind = def.columns[name].kind;
    const test = compileCondition(def, name, kind, condition);
    tests.push((row) => test(row[name]));
  }
  return (row) => tests.every((test) => test(row));
}

function compileCondition(def: TableDef, name: string, kind: ColumnKind, condition: unknown): (cell: unknown) => boolean {
  const equals = (value: unknown) => (cell: unknown) => cell !== null && value !== null && compare(kind, cell, value) === 0;
  const ordered = (accept: (order: number) => boolean, value: unknown) => (cell: unknown) =>
    cell !== null && value !== null && accept(compare(kind, cell, value));

  if (condition === null) return (cell) => cell === null;
  const operator = operatorOf(condition);
  if (!operator) return equals(condition);
  const value = (condition as Record<string, unknown>)[operator];
  switch (operator) {
    case "in": {
      const values = value as unknown[];
      return (cell) => values.some((candidate) => (candidate === null ? cell === null : equals(candidate)(cell)));
    }
    case "ne":
      return value === null ? (cell) => cell !== null : (cell) => cell === null || !equals(value)(cell);
    case "lt":
      return ordered((order) => order < 0, value);
    case "lte":
      return ordered((order) => order <= 0, value);
    case "gt":
      return ordered((order) => order > 0, value);
    case "gte":
      return ordered((order) => order >= 0, value);
    default: {
      if (kind === "integer" || kind === "boolean") throw new Error(`contains needs a text column, not ${def.name}.${name}`);
      const needle = foldAscii(String(value));
      return (cell) => cell !== null && foldAscii(kind === "json" ? JSON.stringify(cell) : String(cell)).includes(needle);
    }
  }
}


const foldAscii = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** Total order matching the SQL adapters: NULL first, booleans false < true, JSON by its text. */
function compare(kind: ColumnKind, a: unknown, b: unknown): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  if (kind === "json") return compareCodePoints(JSON.stringify(a), JSON.stringify(b));
  if (kind === "integer" || kind === "boolean") return Number(a) - Number(b);
  return compareCodePoints(String(a), String(b));
}

/** UTF-8 byte order, which is what SQLite's BINARY and PostgreSQL's "C" collation use. */
function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const left = a.charCodeAt(i);
    const right = b.charCodeAt(i);
    if (left !== right) return codePointRank(left) - codePointRank(right);
  }
  return a.length - b.length;
}

/** UTF-16 code units sort like code points once surrogates are moved above U+E000–U+FFFF. */
const codePointRank = (unit: number) => (unit < 0xd800 ? unit : unit <= 0xdfff ? unit + 0x2000 : unit - 0x800);
