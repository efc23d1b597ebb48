import { fileURLToPath } from "node:url";
import { runLeaseTakeoverTest } from "@strongroom/core/testing";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { afterAll } from "vitest";
import { withPostgres } from "../src/testing.js";

const database = await withPostgres();
afterAll(() => database.drop());

runLeaseTakeoverTest("postgres", {
  skip: !database.available,
  opener: fileURLToPath(new URL("./crash-opener.ts", import.meta.url)),
  env: { STRONGROOM_CRASH_URL: database.available ? database.url : "" },
  reopen: () => createPostgresStorage({ connectionString: database.url }),
});
