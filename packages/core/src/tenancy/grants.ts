import type { ProjectAccess } from "../access/project-access.js";
import { BadRequestError, PermissionBoundaryError } from "../kernel/errors.js";
import { missingPermissions, parseDuration, type PermissionRule } from "../permissions/index.js";

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

/** Nobody grants what they do not hold themselves. */
export function assertWithinBoundary(granter: ProjectAccess, granted: PermissionRule[]): void {
  const missing = missingPermissions(granter.compiled, granted);
  if (missing.length > 0) {
    throw new PermissionBoundaryError("You cannot grant permissions you do not hold yourself", missing);
  }
}
