/**
 * `@strongroom/storage-sqlite/testing`: SQLite files in a temporary directory, as a
 * `forEachStore` backend.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestStore } from "@strongroom/core/testing";
import { createSqliteStorage } from "./index.js";

/** Each `open` makes a new database file; `cleanup` removes the directory that holds them. */
export function sqliteTestStore(): TestStore {
  let dir: string | undefined;
  let files = 0;
  return {
    name: "sqlite",
    available: true,
    open() {
      dir ??= mkdtempSync(join(tmpdir(), "strongroom-sqlite-"));
      return createSqliteStorage({ filename: join(dir, `store-${++files}.db`) });
    },
    async cleanup() {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}
