import { ACCESS_CACHE_CAPACITY, ACCESS_CACHE_TTL_MS } from "../../access/caches.js";
import type { Actor, RequestContext } from "../../kernel/actor.js";
import { defineCache, type Context } from "../../kernel/context.js";
import { sha256Hex } from "../../crypto/hash.js";
import { PermissionDeniedError, UnauthorizedError } from "../../kernel/errors.js";
import type { Cidr } from "../../net/ip.js";
import type { AccessTokenRow } from "../tables.js";
import { authRepository } from "./repository.js";
import { ipTrusted, trustedBlocks } from "./trusted-ips.js";

/** A live token as the cache keeps it: whom it stands for, until when, and its limits. */
export interface CachedToken {
  readonly actor: Actor;
  readonly expiresAt: string;
  /** Uses the token allows; 0: no limit. Each use is counted in storage, never in the cache. */
  readonly numUsesLimit: number;
  /** Where a machine identity's token may be used from (accessTokenTrustedIps); empty: anywhere. */
  readonly trustedIps: readonly Cidr[];
}

/** Live tokens by hash. */
const tokenCache = defineCache<CachedToken>({
  name: "tokens",
  capacity: ACCESS_CACHE_CAPACITY,
  ttlMs: ACCESS_CACHE_TTL_MS,
  dependsOnAccess: true,
});

/**
 * Resolves a bearer token to its actor, with `request` (where the call came from) on it.
 * Unknown, expired, revoked and used-up tokens are all the same 401; a machine identity's token
 * used from outside its accessTokenTrustedIps is 403. Live tokens are cached by hash (see
 * access/caches.ts for how long and what drops them); expiry and the trusted addresses are
 * judged on every call, and a use-limited token's uses are counted in storage on every call.
 */
export async function authenticate(ctx: Context, token: string | undefined, request?: RequestContext): Promise<Actor> {
  if (token === undefined) return request === undefined ? { type: "anonymous" } : { type: "anonymous", request };
  if (!token || token.length > 512) throw new UnauthorizedError("Invalid access token");
  const hash = sha256Hex(token);
  const now = ctx.clock.now();
  const at = now.toISOString();
  const cache = ctx.caches.get(tokenCache);
  let entry = cache.get(hash, now.getTime());
  if (!entry) {
    const version = cache.version;
    const repo = ctx.repo(authRepository);
    const row = await repo.tokenByHash(hash);
    if (!row || row.revokedAt !== null || row.expiresAt <= at) throw invalid();
    const trustedIps = row.actorType === "identity" ? trustedBlocks(await repo.accessTokenTrustedIpsOf(row.actorId)) : [];
    entry = { actor: actorOf(row), expiresAt: row.expiresAt, numUsesLimit: row.numUsesLimit, trustedIps };
    cache.set(hash, entry, { version, now: now.getTime() });
  }
  if (entry.expiresAt <= at) throw invalid();
  if (!ipTrusted(request?.ip, entry.trustedIps)) throw new PermissionDeniedError("This access token may not be used from this address");
  if (entry.numUsesLimit > 0 && !(await ctx.repo(authRepository).useToken(entry.actor.type === "anonymous" ? "" : entry.actor.tokenId, entry.numUsesLimit))) {
    throw new UnauthorizedError("The access token has reached its use limit");
  }
  return request === undefined ? { ...entry.actor } : { ...entry.actor, request };
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

/** Tokens' expiry by token id, or null once revoked or gone: for the re-checks of long-lived streams. */
const tokenLiveness = defineCache<{ expiresAt: string | null }>({
  name: "token-liveness",
  capacity: ACCESS_CACHE_CAPACITY,
  ttlMs: ACCESS_CACHE_TTL_MS,
  dependsOnAccess: true,
});

/**
 * Re-checks that an actor's token is still live (long-lived streams call this periodically).
 * Cached like access (any write to the tokens table drops it); `maxAgeMs` asks for an answer read
 * from storage at most that long ago, for a change another node made.
 */
export async function isTokenLive(ctx: Context, actor: Actor, maxAgeMs?: number): Promise<boolean> {
  if (actor.type === "anonymous") return false;
  const now = ctx.clock.now();
  const cache = ctx.caches.get(tokenLiveness);
  let entry = cache.get(actor.tokenId, now.getTime(), maxAgeMs);
  if (!entry) {
    const version = cache.version;
    const row = await ctx.repo(authRepository).tokenById(actor.tokenId);
    entry = { expiresAt: row && row.revokedAt === null ? row.expiresAt : null };
    cache.set(actor.tokenId, entry, { version, now: now.getTime() });
  }
  return entry.expiresAt !== null && entry.expiresAt > now.toISOString();
}
