import { fileURLToPath } from "node:url";
import { runCrashSafetyTest } from "@strongroom/core/testing";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { afterAll, expect } from "vitest";
import { countSessions, withPostgres } from "../src/testing.js";

const database = await withPostgres();
afterAll(() => database.drop());

/** The child's sessions carry this name, so the test can wait for the server to end them. */
const CHILD = "strongroom-crash-child";
const childUrl = () => {
  const url = new URL(database.url);
  url.searchParams.set("application_name", CHILD);
  return url.toString();
};

runCrashSafetyTest("postgres", {
  skip: !database.available,
  opener: fileURLToPath(new URL("./crash-opener.ts", import.meta.url)),
  env: { STRONGROOM_CRASH_URL: database.available ? childUrl() : "" },
  reopen: () => createPostgresStorage({ connectionString: database.url }),
  // Until the server has noticed the dead client, a COMMIT it already received could still land.
  afterKill: () => expect.poll(() => countSessions(database.url, CHILD), { timeout: 10_000 }).toBe(0),
});
