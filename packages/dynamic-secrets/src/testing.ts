/**
 * `@strongroom/dynamic-secrets/testing`: the local database servers the provider tests lease
 * users on, and clients that log in as a leased user. Without a server the tests that need it are
 * skipped with a notice — except in CI (`CI=true`), where `.ci/run` starts every server and a
 * missing one is a failure.
 */
import { Redis } from "ioredis";
import mysql from "mysql2/promise";
import pg from "pg";

export interface LocalServer {
  /** False when nothing answered (and this is not CI): skip. */
  available: boolean;
  host: string;
  port: number;
}

export const PG_SERVER = { host: "127.0.0.1", port: 5432, username: "postgres", password: "", database: "test" };
export const MARIADB_SERVER = { host: "127.0.0.1", port: 3306, username: "root", password: "", database: "test" };
export const REDIS_SERVER = { host: "127.0.0.1", port: 6379, username: "default" };

const notices = new Set<string>();

async function probe(name: string, host: string, port: number, ping: () => Promise<unknown>): Promise<LocalServer> {
  try {
    await ping();
    return { available: true, host, port };
  } catch (error) {
    const message = `${name} not reachable at ${host}:${port} (${(error as Error).message})`;
    if (process.env.CI === "true") throw new Error(`${message}: it is required in CI`);
    if (!notices.has(name)) console.warn(`${message}: skipping its tests`);
    notices.add(name);
    return { available: false, host, port };
  }
}

export const postgresServer = () =>
  probe("PostgreSQL", PG_SERVER.host, PG_SERVER.port, () => withPostgresLogin({ ...PG_SERVER, DB_USERNAME: PG_SERVER.username, DB_PASSWORD: "" }, "SELECT 1"));

export const mariadbServer = () =>
  probe("MariaDB", MARIADB_SERVER.host, MARIADB_SERVER.port, () =>
    withMysqlLogin({ ...MARIADB_SERVER, DB_USERNAME: MARIADB_SERVER.username, DB_PASSWORD: "" }, "SELECT 1"),
  );

export const redisServer = () => probe("Redis", REDIS_SERVER.host, REDIS_SERVER.port, () => withRedisLogin({ ...REDIS_SERVER, DB_USERNAME: "default", DB_PASSWORD: "" }, ["PING"]));

interface Login {
  host: string;
  port: number;
  database?: string;
  DB_USERNAME: string;
  DB_PASSWORD: string;
}

/** Logs in to PostgreSQL as the given user, runs one query, returns its rows; rejects when the login fails. */
export async function withPostgresLogin(login: Login, sql: string): Promise<unknown[]> {
  const client = new pg.Client({
    host: login.host,
    port: login.port,
    user: login.DB_USERNAME,
    password: login.DB_PASSWORD,
    database: login.database ?? "test",
    connectionTimeoutMillis: 5_000,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return (await client.query(sql)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The same for MySQL and MariaDB. */
export async function withMysqlLogin(login: Login, sql: string): Promise<unknown[]> {
  const connection = await mysql.createConnection({
    host: login.host,
    port: login.port,
    user: login.DB_USERNAME,
    password: login.DB_PASSWORD,
    database: login.database ?? "test",
    connectTimeout: 5_000,
  });
  try {
    const [rows] = await connection.query(sql);
    return rows as unknown[];
  } finally {
    await connection.end().catch(() => undefined);
  }
}

/** Logs in to Redis as the given ACL user and runs one command; rejects when the login fails. */
export async function withRedisLogin(login: Login, command: string[]): Promise<unknown> {
  const redis = new Redis({
    host: login.host,
    port: login.port,
    username: login.DB_USERNAME,
    ...(login.DB_PASSWORD ? { password: login.DB_PASSWORD } : {}),
    lazyConnect: true,
    connectTimeout: 5_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let cause: unknown;
  redis.on("error", (error) => (cause ??= error));
  try {
    await redis.connect().catch((error) => {
      throw cause ?? error;
    });
    return await redis.call(command[0]!, ...command.slice(1));
  } finally {
    redis.disconnect();
  }
}
