import { sha256Hex } from "../../crypto/hash.js";
import { UnauthorizedError } from "../../kernel/errors.js";
import { newId, newSecretToken } from "../../kernel/ids.js";
import type { AppStorage as Storage } from "../../schema.js";

/** DESIGN.md §7: `avp_` + base64url(32 random bytes), valid one hour, one use, stored as SHA-256. */
export const ENROLLMENT_TOKEN_PREFIX = "avp_";
export const ENROLLMENT_TOKEN_TTL_MS = 60 * 60 * 1000;

const INVALID = "Invalid, used or expired enrollment token";

/** Issues a proxy's enrollment token, replacing any earlier one (used or not). Run inside a transaction. */
export async function issueEnrollmentToken(tx: Storage, proxyId: string, now: Date): Promise<{ token: string; expiresAt: string }> {
  const token = newSecretToken(ENROLLMENT_TOKEN_PREFIX);
  const expiresAt = new Date(now.getTime() + ENROLLMENT_TOKEN_TTL_MS).toISOString();
  await tx.tables.agentProxyEnrollmentTokens.delete({ proxyId });
  await tx.tables.agentProxyEnrollmentTokens.insert({
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
export async function findLiveEnrollmentToken(storage: Storage, token: string, now: Date) {
  const row = await storage.tables.agentProxyEnrollmentTokens.findOne({ tokenHash: sha256Hex(token) });
  if (!row || row.usedAt !== null || row.expiresAt <= now.toISOString()) throw new UnauthorizedError(INVALID);
  return row;
}

/**
 * Marks the token used. The conditional update is the one place a race is decided: of concurrent
 * enrollments with the same token exactly one sees a matched row; the others get 401.
 */
export async function consumeEnrollmentToken(tx: Storage, tokenId: string, now: Date): Promise<void> {
  const at = now.toISOString();
  const matched = await tx.tables.agentProxyEnrollmentTokens.update({ id: tokenId, usedAt: null, expiresAt: { gt: at } }, { usedAt: at });
  if (matched !== 1) throw new UnauthorizedError(INVALID);
}

/** Withdraws a proxy's outstanding enrollment token (revocation, deletion). */
export async function withdrawEnrollmentTokens(tx: Storage, proxyId: string): Promise<void> {
  await tx.tables.agentProxyEnrollmentTokens.delete({ proxyId });
}
