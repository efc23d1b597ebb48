import { CliError } from "../exit-codes.js";
import type { DatabaseTarget } from "./target.js";

/**
 * Refuses to go on while a server may be using the database. SQLite: any process holding the
 * file open. PostgreSQL: any other session on the database (servers keep a pool open while they
 * run); `ignoreSessions` is for an operator who knows those sessions are not Strongroom nodes.
 */
export async function requireOffline(target: DatabaseTarget, what: string, ignoreSessions = false): Promise<void> {
  if (target.kind === "sqlite") {
    const { assertNotInUse, DatabaseInUseError } = await import("@strongroom/storage-sqlite");
    try {
      assertNotInUse(target.file);
    } catch (thrown) {
      if (thrown instanceof DatabaseInUseError) throw new CliError(`${thrown.message}; ${what} needs every server stopped`);
      throw thrown;
    }
    return;
  }
  if (ignoreSessions) return;
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select count(*)::int as n, string_agg(distinct coalesce(nullif(application_name, ''), client_addr::text, 'local'), ', ') as who " +
        "from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
    );
    const n = rows[0]?.n as number;
    if (n > 0) {
      throw new CliError(
        `${n} other session${n === 1 ? " is" : "s are"} connected to the database (${rows[0].who}); ${what} needs every server stopped ` +
          "(pass --ignore-sessions if none of them is a Strongroom server)",
      );
    }
  } finally {
    await client.end();
  }
}
