import type { ProjectAccess } from "../access/project-access.js";
import type { RefusedRemovals } from "../access/removal.js";
import type { MembershipRow, ProjectRow } from "../access/tables.js";
import { defineHook } from "../kernel/context.js";

/**
 * What tenancy tells the areas above it, inside the changing transaction. Handlers are registered
 * at assembly (src/hooks.ts).
 */

/**
 * A project is being deleted: every area removes what it keeps in the project, in the deleting
 * transaction, so the deletion is all or nothing. `at` is the deletion's time.
 */
export const projectRemoved = defineHook<{ projectId: string; orgId: string; at: string }>("tenancy.project-removed");

/**
 * A project is about to be deleted by an actor: asked inside the deleting transaction, before
 * anything is removed, each area counts in `refused` what it keeps in the project that the actor
 * may not delete. The deletion goes on only if nothing was counted (issue 15, principle 7).
 */
export const projectRemoving = defineHook<{ access: ProjectAccess; project: ProjectRow; refused: RefusedRemovals }>("tenancy.project-removing");

/** A project membership that was removed: whose, in which project. */
export interface RemovedMembership {
  readonly projectId: string;
  readonly principal: { readonly kind: "user" | "identity"; readonly id: string };
}

/** What areas above tenancy are told of a removed membership row. */
export const removedMembership = (m: MembershipRow): RemovedMembership => ({
  projectId: m.projectId,
  principal: m.userId !== null ? { kind: "user", id: m.userId } : { kind: "identity", id: m.identityId! },
});

/**
 * Project memberships are being removed — one by one, with a user leaving the organization, or
 * with a deleted identity. Inside the removing transaction every area removes what the membership
 * owned in its project (personal overrides, access-bundle grants and the sessions opened on them),
 * so nothing left behind speaks for the principal if it is ever added again.
 */
export const membershipsRemoved = defineHook<{ memberships: readonly RemovedMembership[]; at: string }>("tenancy.memberships-removed");
