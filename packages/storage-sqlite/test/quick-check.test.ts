import { closeSync, openSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { quickCheck } from "../src/quick-check.js";
import { tempDir } from "./temp-dir.js";

const dir = tempDir();
const PAGE = 4096;

function database(name: string): string {
  const file = join(dir, name);
  const db = new Database(file);
  db.exec("create table t (id integer primary key, body text); create index t_body on t (body)");
  const insert = db.prepare("insert into t (body) values (?)");
  db.transaction(() => {
    for (let i = 0; i < 3000; i++) insert.run(`row ${i} `.repeat(8));
  })();
  db.close();
  return file;
}

// In this thread (small files) and in the worker (past the size given): the same answers.
describe.each([
  ["in this thread", undefined],
  ["in a worker", 0],
])("quickCheck %s", (_where, checkHereBytes) => {
  it("passes a healthy file", async () => {
    expect(await quickCheck(database(`healthy-${checkHereBytes}.db`), 10_000, checkHereBytes)).toEqual({ status: "ok" });
  });

  it("finds pages overwritten in the middle of a file", async () => {
    const file = database(`damaged-${checkHereBytes}.db`);
    const pages = statSync(file).size / PAGE;
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.alloc(3 * PAGE, 0x5a), 0, 3 * PAGE, Math.floor(pages / 2) * PAGE);
    closeSync(fd);
    const outcome = await quickCheck(file, 10_000, checkHereBytes);
    expect(outcome.status).toBe("damaged");
  });

  it("reports a file that is not a database", async () => {
    const file = join(dir, `not-a-database-${checkHereBytes}.db`);
    writeFileSync(file, Buffer.alloc(8 * PAGE, 0x41));
    expect(await quickCheck(file, 10_000, checkHereBytes)).toEqual({ status: "damaged", problems: [expect.stringMatching(/^SQLITE_NOTADB: /)] });
  });
});
