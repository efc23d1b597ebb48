/**
 * `@strongroom/dynamic-secrets`: the providers behind Strongroom's dynamic secrets, handed to
 * `createStrongroom({ dynamicSecretProviders })`. Core decides who may lease, for how long and
 * where a provider may connect; these only talk to the databases.
 */
import type { DynamicSecretProvider } from "@strongroom/core";
import { redisProvider } from "./redis/provider.js";
import { sqlDatabaseProvider } from "./sql-database/provider.js";

export { sqlDatabaseProvider } from "./sql-database/provider.js";
export { sqlDatabaseInputs, DEFAULT_STATEMENTS, type SqlDatabaseInputs, type SqlClient } from "./sql-database/schema.js";
export { redisProvider } from "./redis/provider.js";
export { redisInputs, DEFAULT_REDIS_STATEMENTS, type RedisInputs } from "./redis/schema.js";
export { generatePassword, generateUsername, type PasswordRequirements } from "./credentials.js";
export { splitStatements } from "./statements.js";
export { renderTemplate, templateProblem } from "./templates.js";

/** Every provider of this package: what the `strongroom` server runs with. */
export const dynamicSecretProviders: readonly DynamicSecretProvider[] = [sqlDatabaseProvider, redisProvider];
