/**
 * Kysely as the storage packages use it, bundled into storage-kysely's dist (one module instead
 * of kysely's ~260 ES modules, each resolved, read and compiled at start-up: issue #22). SQLite
 * and PostgreSQL import Kysely from here so all three share one copy; only the names listed are
 * kept, the rest of kysely is left out of the bundle.
 */
export {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely";
export type * from "kysely";
