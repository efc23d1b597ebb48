/**
 * The guessing bounds (DESIGN.md §11), as pure rules. The repository applies them under a row
 * lock, so concurrent attempts on several nodes are decided one at a time: once a bound is
 * reached every attempt is refused alike, right or wrong, and no more guesses are judged.
 */

/** Universal auth: `maxFailures` failed logins lock the client id for `lockSeconds`. */
export interface ClientLockoutPolicy {
  readonly maxFailures: number;
  readonly lockSeconds: number;
}

export interface ClientLockoutState {
  readonly failedLogins: number;
  /** ISO time, or null when not locked. */
  readonly lockedUntil: string | null;
}

/** Password logins: `maxFailures` failures within `windowSeconds` of the first refuse the rest of the window. */
export interface PasswordLockoutPolicy {
  readonly maxFailures: number;
  readonly windowSeconds: number;
}

export interface PasswordFailures {
  readonly failures: number;
  /** ISO time of the window's first failure. */
  readonly windowStartedAt: string;
}

/** What an attempt comes to: accepted, refused as a wrong guess, or refused unjudged for `retryAfter` seconds. */
export type Verdict<S> =
  | { readonly outcome: "accepted"; readonly next: S | null }
  | { readonly outcome: "failed"; readonly next: S | null }
  | { readonly outcome: "locked"; readonly retryAfter: number };

const secondsUntil = (at: number, now: Date): number => Math.max(1, Math.ceil((at - now.getTime()) / 1000));

/** Seconds the client id stays locked, or 0. */
export function clientLockedFor(state: ClientLockoutState, now: Date): number {
  if (state.lockedUntil === null) return 0;
  const until = Date.parse(state.lockedUntil);
  return until > now.getTime() ? secondsUntil(until, now) : 0;
}

/**
 * A universal-auth attempt whose secret was `correct`. A success starts the count again; the
 * failure that reaches the maximum locks the client id and starts the count again too.
 */
export function clientAttempt(state: ClientLockoutState, correct: boolean, now: Date, policy: ClientLockoutPolicy): Verdict<ClientLockoutState> {
  const lockedFor = clientLockedFor(state, now);
  if (lockedFor > 0) return { outcome: "locked", retryAfter: lockedFor };
  if (correct) return { outcome: "accepted", next: state.failedLogins === 0 && state.lockedUntil === null ? null : { failedLogins: 0, lockedUntil: null } };
  const failures = state.failedLogins + 1;
  const next =
    failures >= policy.maxFailures
      ? { failedLogins: 0, lockedUntil: new Date(now.getTime() + policy.lockSeconds * 1000).toISOString() }
      : { failedLogins: failures, lockedUntil: null };
  return { outcome: "failed", next };
}

/** Seconds until the pair may try again, or 0. */
export function passwordLockedFor(state: PasswordFailures | undefined, now: Date, policy: PasswordLockoutPolicy): number {
  if (!state || state.failures < policy.maxFailures) return 0;
  const ends = Date.parse(state.windowStartedAt) + policy.windowSeconds * 1000;
  return ends > now.getTime() ? secondsUntil(ends, now) : 0;
}

/**
 * A password attempt that was `correct`, for one (account, client address). `next` null means
 * the pair's record goes (a success, or nothing to remember).
 */
export function passwordAttempt(
  state: PasswordFailures | undefined,
  correct: boolean,
  now: Date,
  policy: PasswordLockoutPolicy,
): Verdict<PasswordFailures> {
  const lockedFor = passwordLockedFor(state, now, policy);
  if (lockedFor > 0) return { outcome: "locked", retryAfter: lockedFor };
  if (correct) return { outcome: "accepted", next: null };
  const windowOpen = state !== undefined && Date.parse(state.windowStartedAt) + policy.windowSeconds * 1000 > now.getTime();
  return {
    outcome: "failed",
    next: windowOpen ? { failures: state.failures + 1, windowStartedAt: state.windowStartedAt } : { failures: 1, windowStartedAt: now.toISOString() },
  };
}
