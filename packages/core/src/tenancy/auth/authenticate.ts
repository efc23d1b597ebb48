import { ACCESS_CACHE_CAPACITY, ACCESS_CACHE_TTL_MS } from "../../access/caches.js";
import type { Actor } from "../../kernel/actor.js";
import { defineCache, type Context } from "../../kernel/context.js";
import { sha256Hex } from "../../crypto/hash.js";
import { UnauthorizedError } from "../../kernel/errors.js";
import type { AccessTokenRow } from "../tables.js";
import { authRepository } from "./repository.js";

/** A live token as the cache keeps it: whom it stands for, and until when. */
export interface CachedToken {
  readonly actor: Actor;
  readonly expiresAt: string;
}

/** Live tokens by hash. */
const tokenCache = defineCache<CachedToken>({
  name: "tokens",
  capacity: ACCESS_CACHE_CAPACITY,
  ttlMs: ACCESS_CACHE_TTL_MS,
  dependsOnAccess: true,
});

/**
 * Resolves a bearer token to its actor. Unknown, expired and revoked tokens are all the same 401.
 * Live tokens are cached by hash (see access/caches.ts for how long and what drops them); expiry
 * is judged against the clock on every call, cached or not.
 */
export async function authenticate(ctx: Context, token: string | undefined): Promise<Actor> {
  if (token === undefined) return { type: "anonymous" };
  if (!token || token.length > 512) throw new UnauthorizedError("Invalid access token");
  const hash = sha256Hex(token);
  const now = ctx.clock.now();
  const at = now.toISOString();
  const cache = ctx.caches.get(tokenCache);
  const cached = cache.get(hash, now.getTime());
  if (cached) {
    if (cached.expiresAt <= at) throw invalid();
    return { ...cached.actor };
  }
  const version = cache.version;
  const row = await ctx.repo(authRepository).tokenByHash(hash);
  if (!row || row.revokedAt !== null || row.expiresAt <= at) throw invalid();
  const actor = actorOf(row);
  cache.set(hash, { actor, expiresAt: row.expiresAt }, { version, now: now.getTime() });
  return { ...actor };
}

const invalid = () => new UnauthorizedError("Invalid or expired access token");

function actorOf(row: AccessTokenRow): Actor {
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
  const row = await ctx.repo(authRepository).tokenById(actor.tokenId);
  return !!row && row.revokedAt === null && row.expiresAt > ctx.clock.now().toISOString();
}
