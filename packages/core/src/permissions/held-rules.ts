import type { PermissionRule } from "./schema.js";
import type { TemporaryGrant } from "./temporary-access.js";

/**
 * The rules of one role or privilege of a membership with the window it is held in: from `start`
 * (inclusive) to `end` (exclusive), in milliseconds; a permanent grant runs from -Infinity to
 * Infinity. A grant with an unreadable bound is never held (empty window), as `isTemporaryActive`
 * treats it.
 */
export interface TimedRuleSource {
  readonly rules: readonly PermissionRule[];
  readonly start: number;
  readonly end: number;
}

const NEVER = { start: Number.POSITIVE_INFINITY, end: Number.NEGATIVE_INFINITY };

/** The window a (possibly temporary) grant is held in. */
export function grantWindow(grant: TemporaryGrant): { start: number; end: number } {
  if (!grant.isTemporary) return { start: Number.NEGATIVE_INFINITY, end: Number.POSITIVE_INFINITY };
  const time = (instant: TemporaryGrant["temporaryAccessStartTime"]) =>
    instant === null || instant === undefined ? Number.NaN : new Date(instant).getTime();
  const start = time(grant.temporaryAccessStartTime);
  const end = time(grant.temporaryAccessEndTime);
  return Number.isNaN(start) || Number.isNaN(end) ? NEVER : { start, end };
}

export const timedSource = (rules: readonly PermissionRule[], grant: TemporaryGrant): TimedRuleSource => ({ rules, ...grantWindow(grant) });

/** Held at every moment of [from, until) — for an empty or inverted span, at `from`. */
const heldThroughout = (s: TimedRuleSource, from: number, until: number): boolean => s.start <= from && s.end > from && s.end >= until;

/** Held at some moment of [from, until) — for an empty or inverted span, at `from`. */
const heldAtSomePoint = (s: TimedRuleSource, from: number, until: number): boolean => s.end > from && s.start < Math.max(until, from + 1);

/**
 * The rules a granter stands behind for the whole span [from, until), for the grant boundary: a
 * grant that lasts until `until` may only be backed by what the granter holds until then.
 *
 * Allowing rules come only from sources held throughout the span (a temporary role ending earlier
 * backs nothing that outlives it); denying rules come from every source held at some moment of it
 * (a deny that starts later still takes away). Rules keep their order, so what these rules allow
 * is allowed by the granter's active rules at every moment of the span: the deciding allow is
 * there all along, and every deny that could override it at any moment is in the list after it.
 */
export function rulesHeldThrough(sources: readonly TimedRuleSource[], from: number, until: number): PermissionRule[] {
  const held: PermissionRule[] = [];
  for (const source of sources) {
    const allows = heldThroughout(source, from, until);
    const denies = heldAtSomePoint(source, from, until);
    if (!allows && !denies) continue;
    for (const rule of source.rules) {
      if (rule.inverted === true ? denies : allows) held.push(rule);
    }
  }
  return held;
}

/** The rules of the sources held at `at`, in order: what decides a check made then. */
export const rulesAt = (sources: readonly TimedRuleSource[], at: number): PermissionRule[] =>
  sources.filter((s) => s.start <= at && at < s.end).flatMap((s) => s.rules);
