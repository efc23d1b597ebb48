import { membershipPermissions, type ProjectAccess } from "../../access/project-access.js";
import { isOwnMembership, refuseOwnAccessChange } from "../../access/own-access.js";
import type { MembershipRow } from "../../access/tables.js";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { PermissionDeniedError } from "../../kernel/errors.js";
import { assertHoldsAll } from "../grants.js";

/** What is done to an existing membership: its roles replaced (`edit`) or the membership removed (`delete`). */
export type MembershipChange = "edit" | "delete";

/** A user's membership is managed with rights on `member`, a machine identity's with rights on `identity`. */
export const membershipSubject = (membership: Pick<MembershipRow, "identityId">): "member" | "identity" =>
  membership.identityId ? "identity" : "member";

/**
 * 403 unless the actor may manage memberships at all (`action` on members or identities): checked
 * before the membership is looked up, so an actor who may not learns nothing of which ids exist.
 */
export function requireMembershipManagement(access: ProjectAccess, action: MembershipChange): void {
  if (!access.can(action, "member") && !access.can(action, "identity")) {
    throw new PermissionDeniedError(`You are not allowed to ${action} on member`);
  }
}

/**
 * Who may change an existing membership (read inside the transaction that changes it):
 * - `action` on `member` for a user's membership, on `identity` for a machine identity's — member
 *   rights alone never rewrite what a machine identity may do;
 * - nobody changes their own roles, though anyone may leave (remove their own membership);
 * - the actor holds every permission the membership has now or is yet to have (403
 *   PermissionBoundaryError otherwise), as Infisical refuses changing a more privileged member.
 */
export async function assertMayChangeMembership(ctx: Context, actor: Actor, access: ProjectAccess, membership: MembershipRow, change: MembershipChange): Promise<void> {
  if (change === "delete" && isOwnMembership(actor, membership)) return;
  access.require(change, membershipSubject(membership));
  refuseOwnAccessChange(actor, membership, "roles");
  const held = await membershipPermissions(ctx, membership);
  assertHoldsAll(access, held, "You cannot change the access of a membership holding permissions you do not hold yourself");
}
