import { accessRepository } from "../../access/repository.js";
import { hashPassword, sha256Hex, verifyPassword } from "../../crypto/hash.js";
import { RateLimitError, UnauthorizedError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import type { ClientSecretRow } from "../tables.js";
import { userRepository } from "../users/repository.js";
import { authRepository } from "./repository.js";
import { loginInput, revokeTokenInput, revokeTokenOutput, tokenResponse, universalAuthLoginInput, universalAuthLoginOutput } from "./schemas.js";
import { issueAccessToken } from "./tokens.js";

// Compared against when the e-mail is unknown, so a miss costs as much time as a wrong password.
const decoyHash = hashPassword("strongroom-decoy-password");

const invalidClient = () => new UnauthorizedError("Invalid client id or secret");

/** Not revoked, not expired, and with uses left. */
const isUsable = (secret: ClientSecretRow, now: Date): boolean =>
  !secret.isRevoked &&
  (secret.expiresAt === null || secret.expiresAt > now.toISOString()) &&
  (secret.numUsesLimit === 0 || secret.numUses < secret.numUsesLimit);

export const authOperations = {
  revokeToken: defineOperation({
    name: "revokeToken",
    summary: "Revoke an access token; holding the token is what entitles the caller to revoke it",
    audience: "public",
    input: revokeTokenInput,
    output: revokeTokenOutput,
    async run(ctx, _actor, input) {
      // The same answer whether or not the token existed: the endpoint is no oracle for tokens.
      await ctx.repo(authRepository).revokeToken(sha256Hex(input.accessToken), ctx.clock.now().toISOString());
      return { message: "Successfully revoked access token" };
    },
  }),

  login: defineOperation({
    name: "login",
    summary: "Log a user in with e-mail and password",
    audience: "public",
    input: loginInput,
    output: tokenResponse,
    async run(ctx, _actor, input) {
      const user = await ctx.repo(userRepository).byEmail(input.email.toLowerCase());
      const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash));
      if (!user || !valid) throw new UnauthorizedError("Invalid e-mail or password");
      const ttl = ctx.config.userTokenTtlSeconds;
      const { token } = await issueAccessToken(ctx, { actorType: "user", actorId: user.id, orgId: null }, ttl);
      return { accessToken: token, expiresIn: ttl, tokenType: "Bearer" as const };
    },
  }),

  universalAuthLogin: defineOperation({
    name: "universalAuthLogin",
    summary: "Log a machine identity in with its universal-auth client id and secret",
    audience: "public",
    input: universalAuthLoginInput,
    output: universalAuthLoginOutput,
    async run(ctx, _actor, input) {
      const repo = ctx.repo(authRepository);
      const now = ctx.clock.now();
      const auth = await repo.universalAuthByClientId(input.clientId);
      if (!auth) throw invalidClient();
      if (auth.lockedUntil && auth.lockedUntil > now.toISOString()) {
        const wait = Math.ceil((Date.parse(auth.lockedUntil) - now.getTime()) / 1000);
        throw new RateLimitError("Too many failed logins for this client id; try again later", wait);
      }
      const secret = await repo.clientSecret(auth.identityId, sha256Hex(input.clientSecret));
      if (!secret || !isUsable(secret, now)) {
        await repo.recordFailedLogin(auth.id, now, ctx.config.loginLockout);
        throw invalidClient();
      }
      const identity = await ctx.repo(accessRepository).identity(auth.identityId);
      if (!identity) throw invalidClient();
      // A lost race only matters to a use-limited secret: it must not be overspent.
      if (!(await repo.consumeClientSecret(secret, now)) && secret.numUsesLimit !== 0) throw invalidClient();
      await repo.clearFailedLogins(auth.id);
      const ttl = auth.accessTokenTTL;
      const { token } = await issueAccessToken(ctx, { actorType: "identity", actorId: identity.id, orgId: identity.orgId }, ttl);
      return { accessToken: token, expiresIn: ttl, accessTokenMaxTTL: auth.accessTokenMaxTTL, tokenType: "Bearer" as const };
    },
  }),
};
