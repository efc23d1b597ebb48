/** Certificate lifetimes and alert windows: the two duration notations of the certificate manager. */
import { BadRequestError } from "../kernel/errors.js";

const SECOND = 1000;
const DAY = 86_400 * SECOND;

/** `ttl` of an issuance request. `m` is minutes and `y` is 365 days, as in the `ms` notation clients already use. */
export const TTL_PATTERN = /^(\d{1,9})([smhdwy])$/;

const TTL_UNIT_MS: Record<string, number> = {
  s: SECOND,
  m: 60 * SECOND,
  h: 3600 * SECOND,
  d: DAY,
  w: 7 * DAY,
  y: 365 * DAY,
};

/** The same ceiling as `ttlDays`: beyond it notAfter stops meaning anything. */
export const MAX_TTL_MS = 36_500 * DAY;

export function parseTtl(ttl: string): number {
  const match = TTL_PATTERN.exec(ttl);
  if (!match) throw new BadRequestError(`Invalid ttl "${ttl}": use a number and a unit s, m, h, d, w or y (e.g. 90d, 12h)`);
  const ms = Number(match[1]) * TTL_UNIT_MS[match[2]!]!;
  if (ms <= 0) throw new BadRequestError("ttl must be greater than zero");
  if (ms > MAX_TTL_MS) throw new BadRequestError("ttl must not exceed 36500 days");
  return ms;
}

/** Request `ttl`, else the profile's `ttlDays`, else a 400: a certificate never gets a lifetime nobody chose. */
export function resolveTtl(ttl: string | undefined, ttlDays: number | undefined): number {
  if (ttl !== undefined && ttl !== "") return parseTtl(ttl);
  if (ttlDays !== undefined) {
    if (!Number.isInteger(ttlDays) || ttlDays < 1 || ttlDays > 36_500) {
      throw new BadRequestError("ttlDays must be an integer from 1 to 36500");
    }
    return ttlDays * DAY;
  }
  throw new BadRequestError("A ttl is required: send attributes.ttl or set defaults.ttlDays on the profile");
}

/**
 * The end of an alert's look-ahead window: certificates expiring before it are due. Days and
 * weeks are exact; months and years follow the calendar (1m from 31 January is 3 March, as
 * JavaScript dates roll over).
 */
export function alertWindowEnd(alertBefore: string, now: Date): Date {
  const match = /^(\d+)([dwmy])$/.exec(alertBefore);
  if (!match) throw new BadRequestError(`Invalid alertBefore "${alertBefore}": use a number and a unit d, w, m or y`);
  const amount = Number(match[1]);
  const end = new Date(now.getTime());
  switch (match[2]) {
    case "d":
      return new Date(now.getTime() + amount * DAY);
    case "w":
      return new Date(now.getTime() + amount * 7 * DAY);
    case "m":
      end.setUTCMonth(end.getUTCMonth() + amount);
      return end;
    default:
      end.setUTCFullYear(end.getUTCFullYear() + amount);
      return end;
  }
}
