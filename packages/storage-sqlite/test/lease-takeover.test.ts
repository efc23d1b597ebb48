import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runLeaseTakeoverTest } from "@strongroom/core/testing";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { tempDir } from "./temp-dir.js";

const filename = join(tempDir(), "lease.db");

runLeaseTakeoverTest("sqlite", {
  opener: fileURLToPath(new URL("./crash-opener.ts", import.meta.url)),
  env: { STRONGROOM_CRASH_FILE: filename },
  reopen: () => createSqliteStorage({ filename }),
});
