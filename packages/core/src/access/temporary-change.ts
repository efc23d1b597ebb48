import type { TemporaryGrant } from "../permissions/index.js";

const timeOf = (instant: TemporaryGrant["temporaryAccessStartTime"]): number =>
  instant === null || instant === undefined ? Number.NaN : new Date(instant).getTime();

/**
 * The first moment after `now` at which one of these grants turns active or inactive, by the rule
 * of `isTemporaryActive` (active while start <= now < end); infinity when none will. An access
 * decision cached at `now` holds until then. Unreadable bounds never change (the grant stays
 * inactive), so they are not moments.
 */
export function nextTemporaryChange(grants: readonly TemporaryGrant[], now: Date): number {
  const at = now.getTime();
  let next = Number.POSITIVE_INFINITY;
  for (const grant of grants) {
    if (!grant.isTemporary) continue;
    for (const moment of [timeOf(grant.temporaryAccessStartTime), timeOf(grant.temporaryAccessEndTime)]) {
      if (moment > at && moment < next) next = moment;
    }
  }
  return next;
}
