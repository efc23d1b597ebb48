/**
 * How long a renewed machine-identity token lives (Infisical's `POST /api/v1/auth/token/renew`):
 * another `accessTokenTTL` from now, but never past `accessTokenMaxTTL` after the token was first
 * issued. Once that bound is reached the token cannot be renewed; the identity logs in again.
 */
export interface RenewalSettings {
  /** Seconds. */
  readonly accessTokenTTL: number;
  /** Seconds from the token's issue. */
  readonly accessTokenMaxTTL: number;
}

export type Renewal = { readonly renewed: true; readonly expiresAt: number } | { readonly renewed: false };

/** `issuedAt` and `now` in milliseconds. */
export function renewal(issuedAt: number, now: number, settings: RenewalSettings): Renewal {
  const bound = issuedAt + settings.accessTokenMaxTTL * 1000;
  if (now >= bound) return { renewed: false };
  return { renewed: true, expiresAt: Math.min(now + settings.accessTokenTTL * 1000, bound) };
}
