import { randomBytes } from "node:crypto";
import type { ProviderTarget } from "@strongroom/core";
import { withPostgres } from "@strongroom/storage-postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlDatabaseInputs, sqlDatabaseProvider, type SqlDatabaseInputs } from "../src/index.js";
import { DEFAULT_STATEMENTS } from "../src/sql-database/schema.js";
import { MARIADB_SERVER, mariadbServer, PG_SERVER, postgresServer, withMysqlLogin, withPostgresLogin } from "../src/testing.js";

const target = (port: number): ProviderTarget => ({ address: "127.0.0.1", port, host: "127.0.0.1" });
const inHour = () => new Date(Date.now() + 3600_000);

describe("sql-database inputs", () => {
  it("fill in the client's default statements and port, and read mysql as mysql2", () => {
    const inputs = sqlDatabaseInputs.parse({ client: "mysql", host: "db", database: "app", username: "root" });
    expect(inputs).toMatchObject({
      client: "mysql2",
      port: 3306,
      password: "",
      creationStatement: DEFAULT_STATEMENTS.mysql2.creation,
      revocationStatement: DEFAULT_STATEMENTS.mysql2.revocation,
      renewStatement: undefined,
    });
    const pg = sqlDatabaseInputs.parse({ client: "postgres", host: "db", database: "app", username: "u", renewStatement: "" });
    expect(pg).toMatchObject({ port: 5432, renewStatement: DEFAULT_STATEMENTS.postgres.renew });
  });

  it.each([
    ["an unknown client", { client: "oracledb" }, ["client"]],
    ["a revocation that uses the password", { revocationStatement: "DROP USER {{username}} {{password}}" }, ["revocationStatement"]],
    ["a renew statement that uses the password", { renewStatement: "ALTER {{password}}" }, ["renewStatement"]],
    ["a port out of range", { port: 70000 }, ["port"]],
  ])("refuse %s", (_name, change, path) => {
    const result = sqlDatabaseInputs.safeParse({ client: "postgres", host: "db", database: "app", username: "u", ...change });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(path);
  });
});

describe("sql-database on PostgreSQL", async () => {
  const server = await postgresServer();
  let database: Awaited<ReturnType<typeof withPostgres>>;
  let inputs: SqlDatabaseInputs;
  const call = () => ({ inputs, target: target(PG_SERVER.port) });
  const login = (data: Record<string, string>, sql = "SELECT count(*)::int AS n FROM things") =>
    withPostgresLogin({ host: "127.0.0.1", port: PG_SERVER.port, database: new URL(database.url).pathname.slice(1), DB_USERNAME: data.DB_USERNAME!, DB_PASSWORD: data.DB_PASSWORD! }, sql);
  const leasedRoles = async () =>
    (await withPostgresLogin({ ...PG_SERVER, DB_USERNAME: "postgres", DB_PASSWORD: "" }, "SELECT rolname FROM pg_roles WHERE rolname LIKE 'sr%'")).length;

  beforeAll(async () => {
    if (!server.available) return;
    database = await withPostgres();
    const name = new URL(database.url).pathname.slice(1);
    await withPostgresLogin({ ...PG_SERVER, database: name, DB_USERNAME: "postgres", DB_PASSWORD: "" }, "CREATE TABLE things (id int); INSERT INTO things VALUES (1), (2)");
    inputs = sqlDatabaseInputs.parse({ client: "postgres", host: "127.0.0.1", port: PG_SERVER.port, database: name, username: "postgres" });
  });
  afterAll(async () => database?.drop());

  it.skipIf(!server.available)("validates root credentials that may create roles", async () => {
    await expect(sqlDatabaseProvider.validate(call())).resolves.toBeUndefined();
  });

  it.skipIf(!server.available)("leases a user that logs in and queries, and revokes it so the login fails", async () => {
    const lease = await sqlDatabaseProvider.create(call(), inHour());
    expect(lease.entityId).toBe(lease.data.DB_USERNAME);
    expect(await login(lease.data)).toEqual([{ n: 2 }]);
    await sqlDatabaseProvider.revoke(call(), lease.entityId);
    await expect(login(lease.data)).rejects.toThrow(/does not exist/);
  });

  it.skipIf(!server.available)("renews by moving the role's expiry", async () => {
    const lease = await sqlDatabaseProvider.create(call(), inHour());
    const later = new Date(Date.now() + 5 * 3600_000);
    later.setMilliseconds(0);
    await sqlDatabaseProvider.renew(call(), lease.entityId, later);
    const [row] = (await login(lease.data, `SELECT rolvaliduntil FROM pg_roles WHERE rolname = current_user`)) as { rolvaliduntil: Date }[];
    expect(row!.rolvaliduntil.toISOString()).toBe(later.toISOString());
    await sqlDatabaseProvider.revoke(call(), lease.entityId);
  });

  it.skipIf(!server.available)("leaves no half-created user when a creation statement fails", async () => {
    const before = await leasedRoles();
    const failing = { ...inputs, creationStatement: `${DEFAULT_STATEMENTS.postgres.creation}\nSELECT * FROM no_such_table;` };
    await expect(sqlDatabaseProvider.create({ inputs: failing, target: target(PG_SERVER.port) }, inHour())).rejects.toThrow(
      /^Could not create the user: relation "no_such_table" does not exist/,
    );
    expect(await leasedRoles()).toBe(before);
  });

  it.skipIf(!server.available)("refuses root credentials that may not create roles, and names why", async () => {
    const weak = `weak_${randomBytes(4).toString("hex")}`;
    const admin = { ...PG_SERVER, DB_USERNAME: "postgres", DB_PASSWORD: "" };
    await withPostgresLogin(admin, `CREATE ROLE ${weak} LOGIN`);
    try {
      await expect(sqlDatabaseProvider.validate({ inputs: { ...inputs, username: weak }, target: target(PG_SERVER.port) })).rejects.toThrow(
        `user '${weak}' may not create users`,
      );
    } finally {
      await withPostgresLogin(admin, `DROP ROLE ${weak}`);
    }
  });

  it.skipIf(!server.available)("requires TLS when a CA is given", async () => {
    const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    await expect(sqlDatabaseProvider.validate({ inputs: { ...inputs, ca }, target: target(PG_SERVER.port) })).rejects.toThrow(/SSL/);
  });
});

describe("sql-database on MariaDB (client mysql2)", async () => {
  const server = await mariadbServer();
  const inputs = sqlDatabaseInputs.parse({ client: "mysql2", ...MARIADB_SERVER });
  const call = () => ({ inputs, target: target(MARIADB_SERVER.port) });
  const root = { ...MARIADB_SERVER, DB_USERNAME: "root", DB_PASSWORD: "" };
  const leasedUsers = async () => ((await withMysqlLogin(root, "SELECT user FROM mysql.user WHERE user LIKE 'sr%'")) as unknown[]).length;
  const login = (data: Record<string, string>, sql = "SELECT CURRENT_USER() AS me") =>
    withMysqlLogin({ host: "127.0.0.1", port: MARIADB_SERVER.port, DB_USERNAME: data.DB_USERNAME!, DB_PASSWORD: data.DB_PASSWORD! }, sql);

  it.skipIf(!server.available)("validates root credentials that may create users", async () => {
    await expect(sqlDatabaseProvider.validate(call())).resolves.toBeUndefined();
  });

  it.skipIf(!server.available)("leases a user that logs in and queries, and revokes it so the login fails", async () => {
    const lease = await sqlDatabaseProvider.create(call(), inHour());
    expect(await login(lease.data)).toEqual([{ me: `${lease.entityId}@%` }]);
    await sqlDatabaseProvider.revoke(call(), lease.entityId);
    await expect(login(lease.data)).rejects.toThrow(/Access denied/);
  });

  it.skipIf(!server.available)("keeps a lease without a renew statement as it is", async () => {
    const lease = await sqlDatabaseProvider.create(call(), inHour());
    await sqlDatabaseProvider.renew(call(), lease.entityId, new Date(Date.now() + 7200_000));
    expect(await login(lease.data)).toHaveLength(1);
    await sqlDatabaseProvider.revoke(call(), lease.entityId);
  });

  it.skipIf(!server.available)("removes the user again when a later creation statement fails", async () => {
    const before = await leasedUsers();
    const failing = { ...inputs, creationStatement: `${DEFAULT_STATEMENTS.mysql2.creation}\nSELECT * FROM no_such_table;` };
    const attempt = sqlDatabaseProvider.create({ inputs: failing, target: target(MARIADB_SERVER.port) }, inHour());
    await expect(attempt).rejects.toThrow(/^Could not create the user: Table 'test.no_such_table' doesn't exist/);
    expect(await leasedUsers()).toBe(before);
  });

  it.skipIf(!server.available)("says what failed without the password it generated", async () => {
    const broken = { ...inputs, creationStatement: "CREATE USER '{{username}}'@'%' IDENTIFIED BY '{{password}}' '{{password}}'" };
    const error = await sqlDatabaseProvider.create({ inputs: broken, target: target(MARIADB_SERVER.port) }, inHour()).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/SQL syntax.*\[redacted\]/);
    expect((error as Error).message).not.toMatch(/IDENTIFIED BY '[A-Za-z0-9]{48}'/);
  });

  it.skipIf(!server.available)("refuses root credentials that may not create users", async () => {
    const weak = `weak_${randomBytes(4).toString("hex")}`;
    await withMysqlLogin(root, `CREATE USER '${weak}'@'%' IDENTIFIED BY 'weak-password-1'`);
    await withMysqlLogin(root, `GRANT SELECT ON test.* TO '${weak}'@'%'`);
    try {
      const weakInputs = { ...inputs, username: weak, password: "weak-password-1" };
      await expect(sqlDatabaseProvider.validate({ inputs: weakInputs, target: target(MARIADB_SERVER.port) })).rejects.toThrow(`user '${weak}' may not create users`);
      const wrong = { ...inputs, password: "not-the-password" };
      const error = await sqlDatabaseProvider.validate({ inputs: wrong, target: target(MARIADB_SERVER.port) }).catch((e: Error) => e);
      expect((error as Error).message).toMatch(/^Could not connect to mysql2 at 127\.0\.0\.1:3306: Access denied/);
      expect((error as Error).message).not.toContain("not-the-password");
    } finally {
      await withMysqlLogin(root, `DROP USER '${weak}'@'%'`);
    }
  });
});
