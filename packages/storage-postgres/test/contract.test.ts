import type { Schema } from "@strongroom/core/storage";
import { runMigrationContract, runStorageContract } from "@strongroom/core/testing";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import pg_ from "pg";
import { afterAll } from "vitest";
import { openPostgres } from "../src/storage.js";
import { type TestDatabase, withPostgres } from "../src/testing.js";

const { Client } = pg_;
const pg = await withPostgres();
const databases: TestDatabase[] = [pg];
afterAll(() => Promise.all(databases.map((database) => database.drop())));

runStorageContract("postgres", () => createPostgresStorage({ connectionString: pg.url }), { skip: !pg.available });

runMigrationContract(
  "postgres",
  async () => {
    const database = await withPostgres();
    databases.push(database);
    const indexNames = async () => {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query<{ name: string }>("select indexname as name from pg_indexes where schemaname = current_schema()")).rows.map((row) => row.name);
      } finally {
        await client.end();
      }
    };
    return Object.assign(<S extends Schema>(schema: S, version?: number) => openPostgres({ connectionString: database.url }, schema, version), { indexNames });
  },
  { skip: !pg.available },
);
