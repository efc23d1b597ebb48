import type mysql from "mysql2/promise";
import type { ProviderTarget } from "@strongroom/core";
import { CONNECT_TIMEOUT_MS, STATEMENT_TIMEOUT_MS, tlsOptions } from "../tls.js";
import type { SqlDatabaseInputs } from "./schema.js";
import type { SqlSession } from "./session.js";

/**
 * A MySQL or MariaDB session over `mysql2`. Their user statements commit one by one, so a failed
 * script is not undone here: the provider runs the revocation script after it.
 */
export async function openMysql(inputs: SqlDatabaseInputs, target: ProviderTarget): Promise<SqlSession> {
  const tls = tlsOptions(target, inputs.ca);
  // The driver loads on first use: most servers never lease MySQL credentials (start-up time, memory).
  const { createConnection } = (await import("mysql2/promise")).default;
  const connection = await createConnection({
    host: target.address,
    port: target.port,
    user: inputs.username,
    password: inputs.password,
    database: inputs.database,
    connectTimeout: CONNECT_TIMEOUT_MS,
    multipleStatements: false,
    ...(tls ? { ssl: tls as mysql.SslOptions } : {}),
  });
  connection.on("error", () => undefined);
  // Text protocol (`query`, not `execute`): user statements cannot be prepared on every server.
  const query = (sql: string) => connection.query({ sql, timeout: STATEMENT_TIMEOUT_MS });
  return {
    atomic: false,
    async run(statements) {
      for (const statement of statements) await query(statement);
    },
    async runEach(statements) {
      for (const statement of statements) await query(statement).catch(() => undefined);
    },
    async mayCreateUsers() {
      const [rows] = await query(
        "SELECT COUNT(*) AS n FROM information_schema.USER_PRIVILEGES WHERE PRIVILEGE_TYPE = 'CREATE USER' AND " +
          "GRANTEE = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')",
      );
      return Number((rows as { n: number | string }[])[0]?.n ?? 0) > 0;
    },
    close: () => connection.end().catch(() => undefined),
  };
}
