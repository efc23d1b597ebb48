import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Schema, strongroomSchema } from "@strongroom/core/storage";
import { runMigrationContract } from "@strongroom/core/testing";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { openSqlite } from "../src/open.js";
import { tempDir } from "./temp-dir.js";

const dir = tempDir();
let databases = 0;

runMigrationContract("sqlite", async () => {
  const filename = join(dir, `migrations-${++databases}.db`);
  const indexNames = async () => {
    const raw = new Database(filename, { readonly: true });
    try {
      return (raw.prepare("select name from sqlite_master where type = 'index'").all() as { name: string }[]).map((row) => row.name);
    } finally {
      raw.close();
    }
  };
  return Object.assign(<S extends Schema>(schema: S, version?: number) => openSqlite(filename, schema, version), { indexNames });
}, { parallelOpens: false });

it("the database file is in WAL mode", async () => {
  const filename = join(dir, "wal.db");
  await (await openSqlite(filename, strongroomSchema)).close();
  const raw = new Database(filename, { readonly: true });
  expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
  raw.close();
});

it("several processes opening a new database file at once all succeed", async () => {
  const filename = join(dir, "parallel.db");
  const child = fileURLToPath(new URL("./open-child.ts", import.meta.url));
  const exits = Array.from({ length: 4 }, async () => {
    const proc = spawn(process.execPath, ["--conditions=source", "--import", "tsx", child, filename], { stdio: "inherit" });
    const [code] = await once(proc, "exit");
    return code;
  });
  expect(await Promise.all(exits)).toEqual([0, 0, 0, 0]);

  const storage = await openSqlite(filename, strongroomSchema);
  expect(await storage.tables.organizations.count()).toBe(4);
  await storage.close();
});
