import { z } from "zod";
import { hashPassword, sha256Hex, verifyPassword } from "../../crypto/hash.js";
import { RateLimitError, UnauthorizedError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { email } from "../../kernel/schemas.js";
import { issueAccessToken } from "./tokens.js";

// Compared against when the e-mail is unknown, so a miss costs as much time as a wrong password.
const decoyHash = hashPassword("strongroom-decoy-password");

const tokenResponse = z.object({
  accessToken: z.string(),
  expiresIn: z.number().int(),
  tokenType: z.literal("Bearer"),
});

export const authOperations = {
  revokeToken: defineOperation({
    name: "revokeToken",
    summary: "Revoke an access token; holding the token is what entitles the caller to revoke it",
    audience: "public",
    input: z.object({ accessToken: z.string().min(1).max(512) }),
    output: z.object({ message: z.string() }),
    async run(ctx, _actor, input) {
      const revoked = await ctx.storage.tables.accessTokens.update(
        { tokenHash: sha256Hex(input.accessToken), revokedAt: null },
        { revokedAt: ctx.clock.now().toISOString() },
      );
      // The same answer whether or not the token existed: the endpoint is no oracle for tokens.
      void revoked;
      return { message: "Successfully revoked access token" };
    },
  }),

  login: defineOperation({
    name: "login",
    summary: "Log a user in with e-mail and password",
    audience: "public",
    input: z.object({ email, password: z.string().min(1).max(256) }),
    output: tokenResponse,
    async run(ctx, _actor, input) {
      const user = await ctx.storage.tables.users.findOne({ email: input.email.toLowerCase() });
      const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash));
      if (!user || !valid) throw new UnauthorizedError("Invalid e-mail or password");
      const ttl = ctx.config.userTokenTtlSeconds;
      const { token } = await issueAccessToken(ctx, ctx.storage, { actorType: "user", actorId: user.id, orgId: null }, ttl);
      return { accessToken: token, expiresIn: ttl, tokenType: "Bearer" as const };
    },
  }),

  universalAuthLogin: defineOperation({
    name: "universalAuthLogin",
    summary: "Log a machine identity in with its universal-auth client id and secret",
    audience: "public",
    input: z.object({ clientId: z.string().min(1).max(256), clientSecret: z.string().min(1).max(512) }),
    output: tokenResponse.extend({ accessTokenMaxTTL: z.number().int() }),
    async run(ctx, _actor, input) {
      const tables = ctx.storage.tables;
      const now = ctx.clock.now();
      const auth = await tables.universalAuths.findOne({ clientId: input.clientId });
      if (!auth) throw new UnauthorizedError("Invalid client id or secret");
      if (auth.lockedUntil && auth.lockedUntil > now.toISOString()) {
        const wait = Math.ceil((Date.parse(auth.lockedUntil) - now.getTime()) / 1000);
        throw new RateLimitError("Too many failed logins for this client id; try again later", wait);
      }
      const secret = await tables.clientSecrets.findOne({ identityId: auth.identityId, secretHash: sha256Hex(input.clientSecret) });
      const usable =
        secret &&
        !secret.isRevoked &&
        (secret.expiresAt === null || secret.expiresAt > now.toISOString()) &&
        (secret.numUsesLimit === 0 || secret.numUses < secret.numUsesLimit);
      if (!secret || !usable) {
        const failures = auth.failedLogins + 1;
        const { maxFailures, lockSeconds } = ctx.config.loginLockout;
        await tables.universalAuths.update(
          { id: auth.id },
          failures >= maxFailures
            ? { failedLogins: 0, lockedUntil: new Date(now.getTime() + lockSeconds * 1000).toISOString() }
            : { failedLogins: failures },
        );
        throw new UnauthorizedError("Invalid client id or secret");
      }
      const identity = await tables.identities.get(auth.identityId);
      if (!identity) throw new UnauthorizedError("Invalid client id or secret");
      // A use-limited secret is consumed by a conditional update so concurrent logins cannot overspend it.
      const consumed = await tables.clientSecrets.update(
        { id: secret.id, numUses: secret.numUses },
        { numUses: secret.numUses + 1, updatedAt: now.toISOString() },
      );
      if (consumed === 0 && secret.numUsesLimit !== 0) throw new UnauthorizedError("Invalid client id or secret");
      if (auth.failedLogins !== 0) await tables.universalAuths.update({ id: auth.id }, { failedLogins: 0 });
      const ttl = auth.accessTokenTTL;
      const { token } = await issueAccessToken(ctx, ctx.storage, { actorType: "identity", actorId: identity.id, orgId: identity.orgId }, ttl);
      return { accessToken: token, expiresIn: ttl, accessTokenMaxTTL: auth.accessTokenMaxTTL, tokenType: "Bearer" as const };
    },
  }),
};
