import { loadProjectAccess, type ProjectAccess } from "../access/project-access.js";
import { projectScope } from "../access/scope.js";
import type { Actor } from "../kernel/actor.js";
import type { Context } from "../kernel/context.js";
import { PermissionDeniedError, UnauthorizedError } from "../kernel/errors.js";
import { isTokenLive } from "../tenancy/auth/authenticate.js";
import { registrationObject, SECRET_EVENTS_SUBJECT, SUBSCRIBE_ACTIONS, type Registration } from "./match.js";

function describe(registration: Registration): string {
  const where = [registration.environmentSlug && `environment ${registration.environmentSlug}`, `secretPath ${registration.secretPath}`];
  return `${SUBSCRIBE_ACTIONS[registration.event]} on ${SECRET_EVENTS_SUBJECT} for ${registration.event} (${where.filter(Boolean).join(", ")})`;
}

/**
 * Requires the `secret-events` action of every registration, with its environment and path glob
 * as the object. Throws 403 naming each missing permission.
 */
export function requireRegistrations(access: ProjectAccess, registrations: readonly Registration[]): void {
  const missing = registrations.filter((r) => !access.can(SUBSCRIBE_ACTIONS[r.event], SECRET_EVENTS_SUBJECT, registrationObject(r)));
  if (missing.length > 0) {
    throw new PermissionDeniedError(`You are not allowed to subscribe: missing ${missing.map(describe).join("; ")}`, {
      missingPermissions: missing.map((r) => ({
        subject: SECRET_EVENTS_SUBJECT,
        action: SUBSCRIBE_ACTIONS[r.event],
        conditions: registrationObject(r),
      })),
    });
  }
}

/**
 * The project a subscription is about (404 when the actor may not know it). Membership is not
 * required here: the registrations' permissions decide.
 */
export const subscriptionScope = projectScope<{ projectId: string }>({ project: (input) => ({ projectId: input.projectId }) });

/**
 * The periodic re-check's shared part, the same for every stream of one token and project: the
 * token is still live, and the actor's access as it is now. Both come from the access caches,
 * which every write through this instance drops; `maxAgeMs` (on a store other nodes write to)
 * asks for answers read at most that long ago, so their changes are seen within the stream bound
 * (subscription.ts).
 * A project that is gone, or an actor no longer in its organization, is the same 404 as at opening.
 */
export async function reloadAccess(ctx: Context, actor: Actor, projectId: string, maxAgeMs: number | undefined): Promise<ProjectAccess> {
  if (!(await isTokenLive(ctx, actor, maxAgeMs))) throw new UnauthorizedError("The access token has expired or was revoked");
  return loadProjectAccess(ctx, actor, { projectId }, { maxAgeMs });
}
