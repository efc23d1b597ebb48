import { z } from "@strongroom/core/zod";
import { DEFAULT_PASSWORD_REQUIREMENTS, passwordRequirementsSchema } from "../credentials.js";
import { caInput, hostInput, portInput, statementInput } from "../inputs.js";

/**
 * `sql-database` inputs, as Infisical names them. `client` is `postgres` or `mysql2` (MySQL and
 * MariaDB; `mysql` is accepted as its alias). Statements left out get the defaults Infisical's
 * console fills in for that client.
 */
export const SQL_CLIENTS = ["postgres", "mysql2"] as const;
export type SqlClient = (typeof SQL_CLIENTS)[number];

export const DEFAULT_STATEMENTS: Record<SqlClient, { creation: string; renew?: string; revocation: string }> = {
  postgres: {
    creation:
      `CREATE USER "{{username}}" WITH ENCRYPTED PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';\n` +
      `GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{{username}}";`,
    renew: `ALTER ROLE "{{username}}" VALID UNTIL '{{expiration}}';`,
    revocation: `REVOKE ALL ON ALL TABLES IN SCHEMA public FROM "{{username}}";\nDROP ROLE "{{username}}";`,
  },
  mysql2: {
    creation: "CREATE USER '{{username}}'@'%' IDENTIFIED BY '{{password}}';\nGRANT SELECT ON `{{database}}`.* TO '{{username}}'@'%';",
    revocation: "DROP USER IF EXISTS '{{username}}'@'%';",
  },
};

/** The variables each statement may use: a revocation never sees the password or the expiry. */
export const SQL_VARIABLES = {
  creation: ["username", "password", "expiration", "database"],
  renew: ["username", "expiration", "database"],
  revocation: ["username", "database"],
} as const;

const DEFAULT_PORTS: Record<SqlClient, number> = { postgres: 5432, mysql2: 3306 };

export const sqlDatabaseInputs = z
  .object({
    client: z
      .enum(["postgres", "mysql2", "mysql"])
      .transform((client): SqlClient => (client === "mysql" ? "mysql2" : client))
      .describe("postgres, or mysql2 for MySQL and MariaDB (mysql is accepted too)"),
    host: hostInput,
    port: portInput.optional(),
    database: z.string().trim().min(1).max(255),
    username: z.string().min(1).max(255),
    password: z.string().max(1024).default(""),
    creationStatement: statementInput(SQL_VARIABLES.creation),
    revocationStatement: statementInput(SQL_VARIABLES.revocation),
    renewStatement: statementInput(SQL_VARIABLES.renew),
    ca: caInput,
    passwordRequirements: passwordRequirementsSchema.optional(),
  })
  .transform((inputs) => {
    const defaults = DEFAULT_STATEMENTS[inputs.client];
    return {
      ...inputs,
      port: inputs.port ?? DEFAULT_PORTS[inputs.client],
      creationStatement: inputs.creationStatement ?? defaults.creation,
      revocationStatement: inputs.revocationStatement ?? defaults.revocation,
      renewStatement: inputs.renewStatement ?? defaults.renew,
      passwordRequirements: inputs.passwordRequirements ?? DEFAULT_PASSWORD_REQUIREMENTS,
    };
  });

export type SqlDatabaseInputs = z.output<typeof sqlDatabaseInputs>;
