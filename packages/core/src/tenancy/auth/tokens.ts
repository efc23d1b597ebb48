import type { Context } from "../../kernel/context.js";
import { sha256Hex } from "../../crypto/hash.js";
import { newId, newSecretToken } from "../../kernel/ids.js";
import type { AppStorage as Storage } from "../../schema.js";

export type TokenActorType = "user" | "identity" | "agent-proxy";

/** Prefix of every access token; the rest is 32 random bytes. Only the SHA-256 is stored. */
export const ACCESS_TOKEN_PREFIX = "srt_";

export async function issueAccessToken(
  ctx: Context,
  storage: Storage,
  subject: { actorType: TokenActorType; actorId: string; orgId: string | null },
  ttlSeconds: number,
): Promise<{ token: string; tokenId: string; expiresAt: Date }> {
  const token = newSecretToken(ACCESS_TOKEN_PREFIX);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const tokenId = newId();
  await storage.tables.accessTokens.insert({
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

/** Revokes every live token of an actor (identity deleted, proxy revoked). */
export async function revokeTokensOf(ctx: Context, storage: Storage, actorType: TokenActorType, actorId: string): Promise<void> {
  await storage.tables.accessTokens.update({ actorType, actorId, revokedAt: null }, { revokedAt: ctx.clock.now().toISOString() });
}

/** Housekeeping step: access tokens that expired or were revoked over a day ago go (only their hashes were kept). */
export async function purgeLapsedTokens(ctx: Context, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString();
  await ctx.storage.tables.accessTokens.delete({ expiresAt: { lt: cutoff } });
  await ctx.storage.tables.accessTokens.delete({ revokedAt: { lt: cutoff } });
}
