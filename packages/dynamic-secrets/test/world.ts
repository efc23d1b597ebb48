import { createTestWorld, type TestStore, type TestWorld, type TestWorldOptions } from "@strongroom/core/testing";
import { withPostgres } from "@strongroom/storage-postgres/testing";
import { dynamicSecretProviders } from "../src/index.js";
import { PG_SERVER, withPostgresLogin } from "../src/testing.js";

/** A test world whose instance offers this package's providers and may reach the local servers. */
export async function dynamicWorld(store: TestStore, options: TestWorldOptions = {}): Promise<TestWorld> {
  return createTestWorld({
    storage: await store.open(),
    dynamicSecretProviders,
    ...options,
    config: { allowPrivateDatabases: true, ...options.config },
  });
}

/** A throwaway PostgreSQL database with a table `things` of two rows, for leased roles to read. */
export async function thingsDatabase(): Promise<{ name: string; drop(): Promise<void> }> {
  const database = await withPostgres();
  const name = new URL(database.url).pathname.slice(1);
  await withPostgresLogin(
    { ...PG_SERVER, database: name, DB_USERNAME: "postgres", DB_PASSWORD: "" },
    "CREATE TABLE things (id int); INSERT INTO things VALUES (1), (2)",
  );
  return { name, drop: () => database.drop() };
}

/** Logs in as a leased PostgreSQL user and counts `things`; rejects when the login fails. */
export const countThings = (database: string, data: Record<string, string>) =>
  withPostgresLogin({ host: "127.0.0.1", port: PG_SERVER.port, database, DB_USERNAME: data.DB_USERNAME!, DB_PASSWORD: data.DB_PASSWORD! }, "SELECT count(*)::int AS n FROM things");

/** Runs a statement as the PostgreSQL superuser. */
export const asPostgres = (sql: string) => withPostgresLogin({ ...PG_SERVER, DB_USERNAME: "postgres", DB_PASSWORD: "" }, sql);
