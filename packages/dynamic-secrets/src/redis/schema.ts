import { z } from "@strongroom/core/zod";
import { caInput, hostInput, portInput, statementInput } from "../inputs.js";

/**
 * `redis` inputs, as Infisical names them: the server, an ACL user that may manage users, and the
 * ACL statements (defaults: a user with every command on every key and channel, deleted on
 * revocation; Redis users do not expire by themselves, so the expiry job revokes them on time).
 */
export const DEFAULT_REDIS_STATEMENTS = {
  creation: "ACL SETUSER {{username}} on >{{password}} ~* &* +@all",
  revocation: "ACL DELUSER {{username}}",
};

export const REDIS_VARIABLES = {
  creation: ["username", "password", "expiration"],
  renew: ["username", "expiration"],
  revocation: ["username"],
} as const;

export const redisInputs = z
  .object({
    host: hostInput,
    port: portInput.default(6379),
    username: z.string().min(1).max(255).default("default"),
    password: z.string().max(1024).optional(),
    creationStatement: statementInput(REDIS_VARIABLES.creation),
    revocationStatement: statementInput(REDIS_VARIABLES.revocation),
    renewStatement: statementInput(REDIS_VARIABLES.renew),
    ca: caInput,
  })
  .transform((inputs) => ({
    ...inputs,
    creationStatement: inputs.creationStatement ?? DEFAULT_REDIS_STATEMENTS.creation,
    revocationStatement: inputs.revocationStatement ?? DEFAULT_REDIS_STATEMENTS.revocation,
  }));

export type RedisInputs = z.output<typeof redisInputs>;
