import { sha256Hex } from "../../crypto/hash.js";
import type { Context } from "../../kernel/context.js";
import { newId, newSecretToken } from "../../kernel/ids.js";
import type { Storage } from "../../storage/table.js";
import { authRepository, tokenQueries } from "./repository.js";

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
 * The token queries to write with: the context's (bound to its transaction, if any), or — for
 * areas that still open transactions on the raw storage and pass it — that storage's.
 */
const tokensOf = (ctx: Context, storage: Storage | undefined) => (storage ? tokenQueries(storage) : ctx.repo(authRepository));

/** Issues a bearer token for `subject`, living `ttlSeconds`. */
export function issueAccessToken(ctx: Context, subject: TokenSubject, ttlSeconds: number): Promise<IssuedToken>;
/** Transitional: the same, written inside a transaction opened on the raw storage. */
export function issueAccessToken(ctx: Context, storage: Storage, subject: TokenSubject, ttlSeconds: number): Promise<IssuedToken>;
export async function issueAccessToken(ctx: Context, ...args: [TokenSubject, number] | [Storage, TokenSubject, number]): Promise<IssuedToken> {
  const [storage, subject, ttlSeconds] = args.length === 3 ? args : [undefined, ...args];
  const token = newSecretToken(ACCESS_TOKEN_PREFIX);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const tokenId = newId();
  await tokensOf(ctx, storage).insertToken({
    id: tokenId,
    tokenHash: sha256Hex(token),
    actorType: subject.actorType,
    actorId: subject.actorId,
    orgId: subject.orgId,
    expiresAt: expiresAt.toISOString(),
    revokedAt: null,
    lastUsedAt: null,
    createdAt: now.toISOString(),
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
export function revokeTokensOf(ctx: Context, actorType: TokenActorType, actorId: string): Promise<void>;
/** Transitional: the same, inside a transaction opened on the raw storage. */
export function revokeTokensOf(ctx: Context, storage: Storage, actorType: TokenActorType, actorId: string): Promise<void>;
export async function revokeTokensOf(ctx: Context, ...args: [TokenActorType, string] | [Storage, TokenActorType, string]): Promise<void> {
  const [storage, actorType, actorId] = args.length === 3 ? args : [undefined, ...args];
  await tokensOf(ctx, storage).revokeTokensOf(actorType, actorId, ctx.clock.now().toISOString());
}

/** Housekeeping step: access tokens that expired or were revoked over a day ago go (only their hashes were kept). */
export async function purgeLapsedTokens(ctx: Context, now: Date): Promise<void> {
  await ctx.repo(authRepository).purgeTokensLapsedBefore(new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString());
}
