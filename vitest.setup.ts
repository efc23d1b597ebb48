import fc from "fast-check";
import { registerTestStore } from "@strongroom/core/testing";
import { postgresTestStore } from "@strongroom/storage-postgres/testing";
import { sqliteTestStore } from "@strongroom/storage-sqlite/testing";

// Property tests explore new inputs on every local run; in CI (CI=true) they replay one fixed
// seed so a submission's result is reproducible. FC_SEED overrides both, to replay a failure.
const seed = process.env.FC_SEED ?? (process.env.CI === "true" ? "20261122" : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });

// `forEachStore` runs a suite on memory, SQLite and PostgreSQL (skipped without a server, except in CI).
registerTestStore(sqliteTestStore());
registerTestStore(await postgresTestStore());
