import { accessRepository } from "../../access/repository.js";
import { hashPassword, sha256Hex, verifyPassword } from "../../crypto/hash.js";
import { BadRequestError, PermissionDeniedError, RateLimitError, UnauthorizedError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import type { ClientSecretRow } from "../tables.js";
import { userRepository } from "../users/repository.js";
import { authRepository } from "./repository.js";
import { renewal } from "./renewal.js";
import {
  loginInput,
  renewTokenInput,
  revokeTokenInput,
  revokeTokenOutput,
  tokenResponse,
  universalAuthLoginInput,
  universalAuthLoginOutput,
} from "./schemas.js";
import { clientLockedFor, passwordLockedFor } from "./lockout.js";
import { issueAccessToken } from "./tokens.js";
import { ipTrusted } from "./trusted-ips.js";

// Compared against when the e-mail is unknown, so a miss costs as much time as a wrong password.
const decoyHash = hashPassword("strongroom-decoy-password");

const invalidClient = () => new UnauthorizedError("Invalid client id or secret");
const lockedClient = (seconds: number) => new RateLimitError("Too many failed logins for this client id; try again later", seconds);
const tooManyPasswordFailures = (seconds: number) => new RateLimitError("Too many failed logins for this account from this address; try again later", seconds);

/** One (account, client address) pair, hashed: unknown e-mails are counted alike, and none is stored. */
const passwordAttemptKey = (email: string, ip: string | undefined): string => sha256Hex(`${email}\u0000${ip ?? "in-process"}`);

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
    async run(ctx, actor, input) {
      const email = input.email.toLowerCase();
      const repo = ctx.repo(authRepository);
      const policy = ctx.config.passwordLockout;
      const key = passwordAttemptKey(email, actor.request?.ip);
      // Refused before the deliberately slow hash is computed: a locked pair costs no CPU.
      const waiting = passwordLockedFor(await repo.passwordFailures(key), ctx.clock.now(), policy);
      if (waiting > 0) throw tooManyPasswordFailures(waiting);
      const user = await ctx.repo(userRepository).byEmail(email);
      const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash));
      const verdict = await repo.settlePasswordAttempt(key, user !== undefined && valid, ctx.clock.now(), policy);
      if (verdict.outcome === "locked") throw tooManyPasswordFailures(verdict.retryAfter);
      if (verdict.outcome === "failed" || !user) throw new UnauthorizedError("Invalid e-mail or password");
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
    async run(ctx, actor, input) {
      const repo = ctx.repo(authRepository);
      const now = ctx.clock.now();
      const auth = await repo.universalAuthByClientId(input.clientId);
      if (!auth) throw invalidClient();
      // Before any guess is judged or counted: outside the trusted addresses nobody can guess, or lock the id.
      if (!ipTrusted(actor.request?.ip, auth.clientSecretTrustedIps)) throw new PermissionDeniedError("Universal auth login is not allowed from this address");
      const waiting = clientLockedFor(auth, now);
      if (waiting > 0) throw lockedClient(waiting);
      const secret = await repo.clientSecret(auth.identityId, sha256Hex(input.clientSecret));
      const verdict = await repo.settleClientAttempt(auth.id, secret !== undefined && isUsable(secret, now), now, ctx.config.loginLockout);
      if (verdict.outcome === "locked") throw lockedClient(verdict.retryAfter);
      if (verdict.outcome === "failed" || !secret) throw invalidClient();
      const identity = await ctx.repo(accessRepository).identity(auth.identityId);
      if (!identity) throw invalidClient();
      // A lost race only matters to a use-limited secret: it must not be overspent.
      if (!(await repo.consumeClientSecret(secret, now)) && secret.numUsesLimit !== 0) throw invalidClient();
      const ttl = auth.accessTokenTTL;
      const subject = { actorType: "identity" as const, actorId: identity.id, orgId: identity.orgId };
      const { token } = await issueAccessToken(ctx, subject, ttl, auth.accessTokenNumUsesLimit);
      return { accessToken: token, expiresIn: ttl, accessTokenMaxTTL: auth.accessTokenMaxTTL, tokenType: "Bearer" as const };
    },
  }),

  renewToken: defineOperation({
    name: "renewToken",
    summary: "Extend a machine identity's access token by its accessTokenTTL, up to accessTokenMaxTTL after it was issued",
    audience: "public",
    input: renewTokenInput,
    output: universalAuthLoginOutput,
    async run(ctx, _actor, input) {
      const repo = ctx.repo(authRepository);
      const now = ctx.clock.now();
      const token = await repo.tokenByHash(sha256Hex(input.accessToken));
      if (!token || token.revokedAt !== null || token.expiresAt <= now.toISOString()) throw new UnauthorizedError("Invalid or expired access token");
      const auth = token.actorType === "identity" ? await repo.universalAuthOf(token.actorId) : undefined;
      if (!auth) throw new BadRequestError("Only access tokens of machine identities with universal auth can be renewed");
      const outcome = renewal(Date.parse(token.createdAt), now.getTime(), auth);
      if (!outcome.renewed) throw new BadRequestError("The access token reached its accessTokenMaxTTL and cannot be renewed; log in again");
      // Conditional on the token still being live: a renewal never revives a revoked token.
      if (!(await repo.extendToken(token.id, new Date(outcome.expiresAt).toISOString()))) throw new UnauthorizedError("Invalid or expired access token");
      return {
        accessToken: input.accessToken,
        expiresIn: Math.floor((outcome.expiresAt - now.getTime()) / 1000),
        accessTokenMaxTTL: auth.accessTokenMaxTTL,
        tokenType: "Bearer" as const,
      };
    },
  }),
};
