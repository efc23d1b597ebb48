import type { ProjectAccess } from "../access/project-access.js";
import type { RefusedRemovals } from "../access/removal.js";
import type { ProjectRow } from "../access/tables.js";
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
