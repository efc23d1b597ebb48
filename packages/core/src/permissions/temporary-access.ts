import { parseDuration } from "./duration.js";

export type Instant = Date | string | number;

const toTime = (instant: Instant | null | undefined): number =>
  instant === null || instant === undefined ? Number.NaN : new Date(instant).getTime();

/** End of a relative temporary grant: start + range. Undefined when the start or the range is invalid. */
export function temporaryAccessWindow({ start, range }: { start: Instant; range: string }): Date | undefined {
  const from = toTime(start);
  const length = parseDuration(range);
  if (Number.isNaN(from) || length === undefined) return undefined;
  return new Date(from + length);
}

export interface TemporaryGrant {
  isTemporary: boolean;
  temporaryAccessStartTime?: Instant | null;
  temporaryAccessEndTime?: Instant | null;
}

/**
 * Permanent grants are always active; temporary ones while start <= now < end. A temporary
 * grant with a missing or unreadable bound is inactive: expiry must fail closed.
 */
export function isTemporaryActive(grant: TemporaryGrant, now: Date): boolean {
  if (!grant.isTemporary) return true;
  const at = now.getTime();
  return toTime(grant.temporaryAccessStartTime) <= at && at < toTime(grant.temporaryAccessEndTime);
}
