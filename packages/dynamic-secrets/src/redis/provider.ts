import type { Redis } from "ioredis";
import type { DynamicSecretProvider, ProviderCall } from "@strongroom/core";
import { generatePassword, generateUsername } from "../credentials.js";
import { providerFailure } from "../redact.js";
import { splitStatements } from "../statements.js";
import { renderTemplate } from "../templates.js";
import { CONNECT_TIMEOUT_MS, STATEMENT_TIMEOUT_MS, tlsOptions } from "../tls.js";
import { redisInputs, type RedisInputs } from "./schema.js";

/** A connection as the root user that fails at once rather than queueing or reconnecting. */
async function connect(call: ProviderCall<RedisInputs>): Promise<Redis> {
  const tls = tlsOptions(call.target, call.inputs.ca);
  // The driver loads on first use: most servers never lease Redis users (start-up time, memory).
  const { Redis: RedisClient } = await import("ioredis");
  const redis = new RedisClient({
    host: call.target.address,
    port: call.target.port,
    username: call.inputs.username,
    ...(call.inputs.password ? { password: call.inputs.password } : {}),
    ...(tls ? { tls } : {}),
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: STATEMENT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // Why a connection failed (refused, WRONGPASS) arrives as an "error" event; connect() itself
  // only says the connection closed.
  let cause: unknown;
  redis.on("error", (error) => (cause ??= error));
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw cause ?? error;
  }
  return redis;
}

/** Each statement of the rendered script as command and arguments (ACL rules need no quoting). */
const commands = (template: string, values: Record<string, string>): string[][] =>
  splitStatements(renderTemplate(template, values)).map((statement) => statement.split(/\s+/).filter((word) => word !== ""));

/** Runs the commands in one MULTI/EXEC; rejects with the first error, queued or executed. */
async function transaction(redis: Redis, script: readonly string[][]): Promise<void> {
  const multi = redis.multi();
  for (const [command, ...args] of script) multi.call(command!, ...args);
  const results = await multi.exec();
  const failed = results?.find(([error]) => error !== null);
  if (!results) throw new Error("the transaction was discarded");
  if (failed) throw failed[0];
}

async function withRedis<T>(call: ProviderCall<RedisInputs>, doing: string, secrets: readonly string[], work: (redis: Redis) => Promise<T>): Promise<T> {
  let redis: Redis | undefined;
  try {
    redis = await connect(call);
    return await work(redis);
  } catch (error) {
    throw providerFailure(doing, error, [call.inputs.password, ...secrets]);
  } finally {
    redis?.disconnect();
  }
}

/** `redis`: an ACL user per lease. Leases hold `DB_USERNAME` and `DB_PASSWORD`. */
export const redisProvider: DynamicSecretProvider<RedisInputs> = {
  type: "redis",
  inputs: redisInputs,
  fields: ["DB_USERNAME", "DB_PASSWORD"],
  endpoint: (inputs) => ({ host: inputs.host, port: inputs.port }),

  validate: (call) =>
    withRedis(call, `Could not connect to Redis at ${call.inputs.host}:${call.inputs.port}`, [], async (redis) => {
      await redis.ping();
      // ACL USERS needs the rights user management needs; NOPERM here means leases would fail too.
      await redis.call("ACL", "USERS").catch((error: Error) => {
        throw new Error(`user '${call.inputs.username}' may not manage ACL users (${error.message})`);
      });
    }),

  async create(call, expiresAt) {
    const username = generateUsername();
    const password = generatePassword();
    const script = commands(call.inputs.creationStatement, { username, password, expiration: expiresAt.toISOString() });
    await withRedis(call, "Could not create the user", [password], async (redis) => {
      try {
        await transaction(redis, script);
      } catch (error) {
        // Commands that ran before a failing one inside MULTI stay applied: remove what they made.
        for (const command of commands(call.inputs.revocationStatement, { username })) {
          await redis.call(command[0]!, ...command.slice(1)).catch(() => undefined);
        }
        throw error;
      }
    });
    return { entityId: username, data: { DB_USERNAME: username, DB_PASSWORD: password } };
  },

  async renew(call, entityId, expiresAt) {
    if (!call.inputs.renewStatement) return;
    const script = commands(call.inputs.renewStatement, { username: entityId, expiration: expiresAt.toISOString() });
    await withRedis(call, "Could not renew the user", [], (redis) => transaction(redis, script));
  },

  async revoke(call, entityId) {
    const script = commands(call.inputs.revocationStatement, { username: entityId });
    await withRedis(call, "Could not revoke the user", [], (redis) => transaction(redis, script));
  },
};
