import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { rawRowsOf } from "../src/raw-rows.js";

describe("raw rows", () => {
  const db = new Database(":memory:");
  db.exec("create table t (a integer, b text, c blob); insert into t values (1, 'x', x'00ff'), (2, null, null)");

  it("makes the objects better-sqlite3 would have made, later columns of a name winning", () => {
    const sql = "select a, b, c, b as a from t order by a";
    const expected = db.prepare(sql).all();
    const statement = db.prepare(sql);
    const toObject = rawRowsOf(statement)!;
    const rows = [...statement.iterate()].map((values) => toObject(values as unknown[]));
    expect(rows).toEqual(expected);
    expect(Object.keys(rows[0]!)).toEqual(Object.keys(expected[0] as object));
  });

  it("leaves statements that return no rows as they are", () => {
    expect(rawRowsOf(db.prepare("update t set a = a"))).toBeNull();
  });
});
