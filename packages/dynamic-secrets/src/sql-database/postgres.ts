import type pg from "pg";
import type { ProviderTarget } from "@strongroom/core";
import { CONNECT_TIMEOUT_MS, STATEMENT_TIMEOUT_MS, tlsOptions } from "../tls.js";
import type { SqlDatabaseInputs } from "./schema.js";
import type { SqlSession } from "./session.js";

/** A PostgreSQL session over `pg`: scripts run in one transaction, so a failing statement undoes the ones before it. */
export async function openPostgres(inputs: SqlDatabaseInputs, target: ProviderTarget): Promise<SqlSession> {
  // The driver loads on first use (start-up time, memory); a PostgreSQL-backed server has it loaded already.
  const { Client } = (await import("pg")).default;
  const client: pg.Client = new Client({
    host: target.address,
    port: target.port,
    user: inputs.username,
    password: inputs.password,
    database: inputs.database,
    ssl: tlsOptions(target, inputs.ca) ?? false,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS,
    application_name: "strongroom-dynamic-secrets",
  });
  // A connection dropped between queries surfaces on the next query; nothing else listens.
  client.on("error", () => undefined);
  await client.connect();
  return {
    atomic: true,
    async run(statements) {
      await client.query("BEGIN");
      try {
        for (const statement of statements) await client.query(statement);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    },
    async runEach(statements) {
      for (const statement of statements) await client.query(statement).catch(() => undefined);
    },
    async mayCreateUsers() {
      const { rows } = await client.query<{ may: boolean }>(
        "SELECT (rolsuper OR rolcreaterole) AS may FROM pg_roles WHERE rolname = current_user",
      );
      return rows[0]?.may === true;
    },
    close: () => client.end().catch(() => undefined),
  };
}
