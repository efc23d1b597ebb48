import { sha256Hex } from "../../crypto/hash.js";
import type { Context } from "../../kernel/context.js";
import { newId, newSecretToken } from "../../kernel/ids.js";
import { authRepository } from "./repository.js";

export type TokenActorType = "user" | "identity" | "agent-proxy";

export interface TokenSubject {
  actorType: TokenActorType;
  actorId: string;
  orgId: string | null;
}

export interface IssuedToken {
  token: string;
  tokenId: string;
  expiresAt: Date;
}

/** Prefix of every access token; the rest is 32 random bytes. Only the SHA-256 is stored. */
export const ACCESS_TOKEN_PREFIX = "srt_";

/**
 * Issues a bearer token for `subject`, living `ttlSeconds`; inside a transaction, written in it.
 * `numUsesLimit` (0: none) bounds how many requests may use it.
 */
export async function issueAccessToken(ctx: Context, subject: TokenSubject, ttlSeconds: number, numUsesLimit = 0): Promise<IssuedToken> {
  const token = newSecretToken(ACCESS_TOKEN_PREFIX);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const tokenId = newId();
  const repo = ctx.repo(authRepository);
  // The counter first: a token whose counter is missing is refused, never unlimited.
  if (numUsesLimit > 0) await repo.insertTokenUses(tokenId);
  await repo.insertToken({
    id: tokenId,
    tokenHash: sha256Hex(token),
    actorType: subject.actorType,
    actorId: subject.actorId,
    orgId: subject.orgId,
    expiresAt: expiresAt.toISOString(),
    revokedAt: null,
    lastUsedAt: null,
    createdAt: now.toISOString(),
    numUsesLimit,
  });
  return { token, tokenId, expiresAt };
}

/**
 * Moves a live token's expiry to `ttlSeconds` from now (a token kept alive by use, as an agent
 * proxy's is by its heartbeats); a revoked token stays revoked.
 */
export async function extendAccessToken(ctx: Context, tokenId: string, ttlSeconds: number): Promise<void> {
  const expiresAt = new Date(ctx.clock.now().getTime() + ttlSeconds * 1000).toISOString();
  await ctx.repo(authRepository).extendToken(tokenId, expiresAt);
}

/** Revokes every live token of an actor (identity deleted, proxy revoked). */
export async function revokeTokensOf(ctx: Context, actorType: TokenActorType, actorId: string): Promise<void> {
  await ctx.repo(authRepository).revokeTokensOf(actorType, actorId, ctx.clock.now().toISOString());
}

/**
 * Housekeeping step: access tokens that expired or were revoked over a day ago go (only their
 * hashes were kept), with their use counters; so do password-failure windows that ended.
 */
export async function purgeLapsedTokens(ctx: Context, now: Date): Promise<void> {
  const repo = ctx.repo(authRepository);
  await repo.purgeTokensLapsedBefore(new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString());
  await repo.purgePasswordFailuresBefore(new Date(now.getTime() - ctx.config.passwordLockout.windowSeconds * 1000).toISOString());
}
