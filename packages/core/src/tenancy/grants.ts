import type { ProjectAccess } from "../access/project-access.js";
import { BadRequestError, PermissionBoundaryError } from "../kernel/errors.js";
import { compileRules, missingPermissions, parseDuration, rulesHeldThrough, type PermissionRule } from "../permissions/index.js";

/**
 * What every grant obeys, whether it is a role given to a membership, a custom role's rules or an
 * identity's privilege: nobody grants what they do not hold, and a temporary grant has a window.
 */

/** A grant as callers ask for it: permanent, or temporary with a relative range from its start. */
export interface TemporaryInput {
  isTemporary: boolean;
  temporaryMode?: string;
  temporaryRange?: string;
  temporaryAccessStartTime?: string;
}

/** A permanent grant has no window. */
export const permanentWindow = { temporaryMode: null, temporaryRange: null, temporaryAccessStartTime: null, temporaryAccessEndTime: null };

/** Start and end of a temporary grant, or nulls for a permanent one. Invalid ranges are a 400. */
export function temporaryWindow(input: TemporaryInput, now: Date) {
  if (!input.isTemporary) return { ...permanentWindow };
  if (!input.temporaryRange) throw new BadRequestError("A temporary grant needs temporaryRange");
  const ms = parseDuration(input.temporaryRange);
  if (ms === undefined) throw new BadRequestError(`Invalid temporaryRange '${input.temporaryRange}'; use a duration such as 30m, 1h or 7d`);
  const start = input.temporaryAccessStartTime ? new Date(input.temporaryAccessStartTime) : now;
  return {
    temporaryMode: input.temporaryMode ?? "relative",
    temporaryRange: input.temporaryRange,
    temporaryAccessStartTime: start.toISOString(),
    temporaryAccessEndTime: new Date(start.getTime() + ms).toISOString(),
  };
}

/** The moment a grant with this window ends: never for a permanent one. */
export const grantEnd = (window: { temporaryAccessEndTime: string | null }): number =>
  window.temporaryAccessEndTime === null ? Number.POSITIVE_INFINITY : Date.parse(window.temporaryAccessEndTime);

/**
 * Nobody grants what they do not hold themselves, for as long as the grant lasts: a grant ending
 * at `until` (a permanent one never ends) is backed only by the granter's roles and privileges
 * that last until then, so a temporary role cannot hand out anything that outlives it.
 */
export function assertWithinBoundary(granter: ProjectAccess, granted: PermissionRule[], { now, until }: { now: Date; until: number }): void {
  const lasting = granter.sources.every((s) => s.start === Number.NEGATIVE_INFINITY && s.end === Number.POSITIVE_INFINITY)
    ? granter.compiled
    : compileRules(rulesHeldThrough(granter.sources, now.getTime(), until));
  const missing = missingPermissions(lasting, granted);
  if (missing.length > 0) {
    const outlives = lasting !== granter.compiled && missingPermissions(granter.compiled, granted).length === 0;
    throw new PermissionBoundaryError(
      outlives
        ? "You cannot grant permissions for longer than you hold them yourself"
        : "You cannot grant permissions you do not hold yourself",
      missing,
    );
  }
}

/**
 * Changing someone's access requires holding it: the actor must hold every permission the
 * membership (or the role) has now, or the change could take away, or rewrite, more than the
 * actor could ever give back.
 */
export function assertHoldsAll(actor: ProjectAccess, current: readonly PermissionRule[], message: string): void {
  const missing = missingPermissions(actor.compiled, current);
  if (missing.length > 0) throw new PermissionBoundaryError(message, missing);
}
