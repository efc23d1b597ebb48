import pg from "pg";

/**
 * Runs once before the test files: asks whether PostgreSQL answers at PG_URL, so each file knows
 * without probing again. Without a server the PostgreSQL suites skip — except in CI (CI=true),
 * where PostgreSQL must run and its absence fails the run here.
 */
export default async function probePostgres(): Promise<void> {
  const url = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("select 1");
    process.env.STRONGROOM_TEST_POSTGRES = "available";
  } catch (error) {
    if (process.env.CI === "true") throw new Error(`PostgreSQL is required in CI, but it did not answer: ${(error as Error).message}`);
    process.env.STRONGROOM_TEST_POSTGRES = "unavailable";
    console.warn("PostgreSQL not reachable: skipping PostgreSQL tests");
  } finally {
    await client.end().catch(() => undefined);
  }
}
