import { runMigrationContract, runStorageContract } from "@strongroom/core/testing";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { afterAll } from "vitest";
import { openPostgres } from "../src/storage.js";
import { type TestDatabase, withPostgres } from "../src/testing.js";

const pg = await withPostgres();
const databases: TestDatabase[] = [pg];
afterAll(() => Promise.all(databases.map((database) => database.drop())));

runStorageContract("postgres", () => createPostgresStorage({ connectionString: pg.url }), { skip: !pg.available });

runMigrationContract(
  "postgres",
  async () => {
    const database = await withPostgres();
    databases.push(database);
    return (schema, version) => openPostgres({ connectionString: database.url }, schema, version);
  },
  { skip: !pg.available },
);
