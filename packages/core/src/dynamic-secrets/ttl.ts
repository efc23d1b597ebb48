/**
 * How long leases live: pure decisions, so they are tested alone. Durations are written as
 * `30m`, `1h`, `7d` (the permission engine's notation); a lease lives at least a minute and at
 * most ten years, as in Infisical.
 */
import { MAX_DURATION_MS, parseDuration } from "../permissions/duration.js";

export const MIN_TTL_MS = 60_000;

/** A duration in ms, or why it is not one a lease can have. */
export function readTtl(text: string, field: string): { ms: number } | { problem: string } {
  const ms = parseDuration(text);
  if (ms === undefined) return { problem: `${field} "${text}" is not a duration such as 30m, 1h or 7d (at most ${MAX_DURATION_MS / 86_400_000}d)` };
  if (ms < MIN_TTL_MS) return { problem: `${field} must be at least 1m` };
  return { ms };
}

/** Why a dynamic secret's `defaultTTL` and `maxTTL` do not fit together, or undefined. */
export function ttlPairProblem(defaultTtlMs: number, maxTtlMs: number | null): string | undefined {
  return maxTtlMs !== null && defaultTtlMs > maxTtlMs ? "defaultTTL must not exceed maxTTL" : undefined;
}

/** A new lease's expiry: its `ttl`, else the secret's `defaultTTL`, never beyond `maxTTL`. */
export function leaseExpiry(now: Date, ttlMs: number | undefined, defaultTtlMs: number, maxTtlMs: number | null): { expiresAt: Date } | { problem: string } {
  const chosen = ttlMs ?? defaultTtlMs;
  if (maxTtlMs !== null && chosen > maxTtlMs) return { problem: "The lease's ttl exceeds the dynamic secret's maxTTL" };
  return { expiresAt: new Date(now.getTime() + chosen) };
}

/**
 * A renewal's new expiry, as Infisical computes it: the current expiry pushed back by `ttl` (else
 * `defaultTTL`), refused when that passes `maxTTL` counted from the lease's creation, or when the
 * lease has already expired.
 */
export function renewalExpiry(
  lease: { createdAt: Date; expiresAt: Date },
  now: Date,
  ttlMs: number | undefined,
  defaultTtlMs: number,
  maxTtlMs: number | null,
): { expiresAt: Date } | { problem: string } {
  if (lease.expiresAt.getTime() <= now.getTime()) return { problem: "The lease has expired; create a new one" };
  const expiresAt = new Date(lease.expiresAt.getTime() + (ttlMs ?? defaultTtlMs));
  if (maxTtlMs !== null && expiresAt.getTime() > lease.createdAt.getTime() + maxTtlMs) {
    return { problem: "Renewing would take the lease beyond the dynamic secret's maxTTL" };
  }
  return { expiresAt };
}

const RETRY_FIRST_MS = 60_000;
const RETRY_MAX_MS = 3_600_000;

/** When a failed revocation is tried again: a minute after the first failure, doubling, at most hourly. */
export function retryDelayMs(failedAttempts: number): number {
  return Math.min(RETRY_FIRST_MS * 2 ** Math.max(0, failedAttempts - 1), RETRY_MAX_MS);
}
