import type { BundleGrant, ServiceRow } from "../tables.js";

/**
 * Which changes decide where a credential goes (issue 15, principle 5): such a change needs
 * `readValue` on every secret the credentials use, as defining them does.
 */

/** A service change that sends its credentials somewhere else: other hosts, or on or off. */
export const redirects = (service: Pick<ServiceRow, "hostPattern" | "isEnabled">, change: { hostPattern?: string; isEnabled?: boolean }): boolean =>
  (change.hostPattern !== undefined && change.hostPattern !== service.hostPattern) ||
  (change.isEnabled !== undefined && change.isEnabled !== service.isEnabled);

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
};

const grantKey = (grant: BundleGrant): string => `${grant.type}:${grant.id}`;

/** A bundle change that hands its services' credentials to others: other services, or other grantees. */
export const rebundles = (
  bundle: { serviceIds: readonly string[]; grants: readonly BundleGrant[] },
  change: { serviceIds?: readonly string[]; grants?: readonly BundleGrant[] },
): boolean =>
  (change.serviceIds !== undefined && !sameSet(change.serviceIds, bundle.serviceIds)) ||
  (change.grants !== undefined && !sameSet(change.grants.map(grantKey), bundle.grants.map(grantKey)));
