import type { DynamicSecretProvider, ProviderCall } from "@strongroom/core";
import { generatePassword, generateUsername } from "../credentials.js";
import { providerFailure } from "../redact.js";
import { splitStatements } from "../statements.js";
import { renderTemplate } from "../templates.js";
import { openMysql } from "./mysql.js";
import { openPostgres } from "./postgres.js";
import { sqlDatabaseInputs, type SqlDatabaseInputs } from "./schema.js";
import type { SqlSession } from "./session.js";

const open = (call: ProviderCall<SqlDatabaseInputs>): Promise<SqlSession> =>
  call.inputs.client === "postgres" ? openPostgres(call.inputs, call.target) : openMysql(call.inputs, call.target);

/** Opens a session, runs `work`, closes; any failure comes out as `doing: <what the server said>`, without secrets. */
async function withSession<T>(
  call: ProviderCall<SqlDatabaseInputs>,
  doing: string,
  secrets: readonly string[],
  work: (session: SqlSession) => Promise<T>,
): Promise<T> {
  let session: SqlSession | undefined;
  try {
    session = await open(call);
    return await work(session);
  } catch (error) {
    throw providerFailure(doing, error, [call.inputs.password, ...secrets]);
  } finally {
    await session?.close();
  }
}

const script = (template: string, values: Record<string, string>) => splitStatements(renderTemplate(template, values));

/**
 * `sql-database`: a PostgreSQL, MySQL or MariaDB user per lease, made and removed by the
 * templated statements of the inputs. Leases hold `DB_USERNAME` and `DB_PASSWORD`.
 */
export const sqlDatabaseProvider: DynamicSecretProvider<SqlDatabaseInputs> = {
  type: "sql-database",
  inputs: sqlDatabaseInputs,
  fields: ["DB_USERNAME", "DB_PASSWORD"],
  endpoint: (inputs) => ({ host: inputs.host, port: inputs.port }),

  validate: (call) =>
    withSession(call, `Could not connect to ${call.inputs.client} at ${call.inputs.host}:${call.inputs.port}`, [], async (session) => {
      if (!(await session.mayCreateUsers())) {
        throw new Error(`user '${call.inputs.username}' may not create users (PostgreSQL: CREATEROLE; MySQL: CREATE USER)`);
      }
    }),

  async create(call, expiresAt) {
    const { inputs } = call;
    const username = generateUsername();
    const password = generatePassword(inputs.passwordRequirements);
    const values = { username, password, expiration: expiresAt.toISOString(), database: inputs.database };
    const creation = script(inputs.creationStatement, values);
    await withSession(call, "Could not create the user", [password], async (session) => {
      try {
        await session.run(creation);
      } catch (error) {
        // What a non-transactional server already made is removed again: no half-created user.
        if (!session.atomic) await session.runEach(script(inputs.revocationStatement, { username, database: inputs.database }));
        throw error;
      }
    });
    return { entityId: username, data: { DB_USERNAME: username, DB_PASSWORD: password } };
  },

  async renew(call, entityId, expiresAt) {
    const { inputs } = call;
    if (!inputs.renewStatement) return;
    const statements = script(inputs.renewStatement, { username: entityId, expiration: expiresAt.toISOString(), database: inputs.database });
    await withSession(call, "Could not renew the user", [], (session) => session.run(statements));
  },

  async revoke(call, entityId) {
    const { inputs } = call;
    const statements = script(inputs.revocationStatement, { username: entityId, database: inputs.database });
    await withSession(call, "Could not revoke the user", [], (session) => session.run(statements));
  },
};
