import type { Actor } from "../actor.js";
import type { Context } from "../context.js";
import { sha256Hex } from "../crypto/hash.js";
import { UnauthorizedError } from "../errors.js";

/** Resolves a bearer token to its actor. Unknown, expired and revoked tokens are all the same 401. */
export async function authenticate(ctx: Context, token: string | undefined): Promise<Actor> {
  if (token === undefined) return { type: "anonymous" };
  if (!token || token.length > 512) throw new UnauthorizedError("Invalid access token");
  const row = await ctx.storage.tables.accessTokens.findOne({ tokenHash: sha256Hex(token) });
  if (!row || row.revokedAt !== null || row.expiresAt <= ctx.clock.now().toISOString()) {
    throw new UnauthorizedError("Invalid or expired access token");
  }
  switch (row.actorType) {
    case "user":
      return { type: "user", userId: row.actorId, tokenId: row.id };
    case "identity":
      return { type: "identity", identityId: row.actorId, orgId: row.orgId ?? "", tokenId: row.id };
    case "agent-proxy":
      return { type: "agent-proxy", proxyId: row.actorId, orgId: row.orgId ?? "", tokenId: row.id };
    default:
      throw new UnauthorizedError("Invalid access token");
  }
}

/** Re-checks that an actor's token is still live (long-lived streams call this periodically). */
export async function isTokenLive(ctx: Context, actor: Actor): Promise<boolean> {
  if (actor.type === "anonymous") return false;
  const row = await ctx.storage.tables.accessTokens.get(actor.tokenId);
  return !!row && row.revokedAt === null && row.expiresAt > ctx.clock.now().toISOString();
}
