import { actorPrincipal, type Actor } from "../kernel/actor.js";
import { PermissionDeniedError } from "../kernel/errors.js";
import type { MembershipRow } from "./tables.js";

/** Whether the membership is the actor's own (a user's or a machine identity's). */
export function isOwnMembership(actor: Actor, membership: Pick<MembershipRow, "userId" | "identityId">): boolean {
  const principal = actorPrincipal(actor);
  if (!principal) return false;
  return principal.kind === "user" ? membership.userId === principal.id : membership.identityId === principal.id;
}

/**
 * Nobody edits their own roles or privileges: whatever the actor may grant others, raising (or
 * re-timing) its own access would let one grant vouch for itself. Leaving a project — removing
 * one's own membership — is not such an edit.
 */
export function refuseOwnAccessChange(actor: Actor, membership: Pick<MembershipRow, "userId" | "identityId">, what: "roles" | "privileges"): void {
  if (isOwnMembership(actor, membership)) throw new PermissionDeniedError(`You cannot change your own ${what}`);
}
