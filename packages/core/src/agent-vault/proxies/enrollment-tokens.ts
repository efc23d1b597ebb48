import { sha256Hex } from "../../crypto/hash.js";
import type { Context } from "../../kernel/context.js";
import { UnauthorizedError } from "../../kernel/errors.js";
import { newId, newSecretToken } from "../../kernel/ids.js";
import type { EnrollmentTokenRow, ProxyRow } from "../tables.js";
import { proxyRepository } from "./repository.js";

/** DESIGN.md §7: `avp_` + base64url(32 random bytes), valid one hour, one use, stored as SHA-256. */
export const ENROLLMENT_TOKEN_PREFIX = "avp_";
export const ENROLLMENT_TOKEN_TTL_MS = 60 * 60 * 1000;

const invalid = () => new UnauthorizedError("Invalid, used or expired enrollment token");

/** Issues a proxy's enrollment token, replacing any earlier one (used or not). */
export async function issueEnrollmentToken(ctx: Context, proxyId: string, now: Date): Promise<{ token: string; expiresAt: string }> {
  const token = newSecretToken(ENROLLMENT_TOKEN_PREFIX);
  const expiresAt = new Date(now.getTime() + ENROLLMENT_TOKEN_TTL_MS).toISOString();
  await ctx.repo(proxyRepository).replaceEnrollmentToken({
    id: newId(),
    proxyId,
    tokenHash: sha256Hex(token),
    expiresAt,
    usedAt: null,
    createdAt: now.toISOString(),
  });
  return { token, expiresAt };
}

/** The live (unused, unexpired) token row for a presented token; 401 otherwise. Consumes nothing. */
export async function findLiveEnrollmentToken(ctx: Context, token: string, now: Date): Promise<EnrollmentTokenRow> {
  const row = await ctx.repo(proxyRepository).enrollmentTokenByHash(sha256Hex(token));
  if (!row || row.usedAt !== null || row.expiresAt <= now.toISOString()) throw invalid();
  return row;
}

/** Uses the token up and answers the proxy it enrolls; 401 when another enrollment used it first or the proxy is gone. */
export async function consumeEnrollmentToken(ctx: Context, token: EnrollmentTokenRow, now: Date): Promise<ProxyRow> {
  const proxy = await ctx.repo(proxyRepository).consumeEnrollmentToken(token, now.toISOString());
  if (!proxy) throw invalid();
  return proxy;
}
