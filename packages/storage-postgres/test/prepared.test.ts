import { afterAll, describe, expect, it } from "vitest";
import { createPool, warnOnError } from "../src/pool.js";
import { withPostgres } from "../src/testing.js";

const pg = await withPostgres();
afterAll(() => pg.drop());

describe.skipIf(!pg.available)("prepared statements on PostgreSQL", () => {
  it("prepares each query text once per connection and keeps answering with new values", async () => {
    const pool = createPool(pg.url, { max: 1 }, warnOnError);
    try {
      const client = await pool.connect();
      try {
        await client.query("create table items (id text primary key, n bigint not null)");
        await client.query("insert into items values ($1, $2), ($3, $4)", ["a", 1, "b", 2]);
        const lookup = "select n from items where id = $1";
        expect((await client.query(lookup, ["a"])).rows).toEqual([{ n: "1" }]);
        expect((await client.query(lookup, ["b"])).rows).toEqual([{ n: "2" }]);
        const prepared = await client.query("select statement from pg_prepared_statements");
        const statements = prepared.rows.map((row: { statement: string }) => row.statement);
        expect(statements).toContain(lookup);
        expect(statements.filter((s: string) => s === lookup)).toHaveLength(1);
        // DDL and transaction control stay unnamed.
        expect(statements.some((s: string) => s.startsWith("create table"))).toBe(false);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it("reports a failing prepared statement and prepares it again after a rollback", async () => {
    const pool = createPool(pg.url, { max: 1 }, warnOnError);
    try {
      const client = await pool.connect();
      try {
        await client.query("create table once (id text primary key)");
        const insert = "insert into once values ($1)";
        await client.query("begin");
        await client.query(insert, ["x"]);
        await expect(client.query(insert, ["x"])).rejects.toMatchObject({ code: "23505" });
        await client.query("rollback");
        await client.query(insert, ["x"]);
        expect((await client.query("select id from once where id = $1", ["x"])).rows).toEqual([{ id: "x" }]);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
});
