import type { DynamicSecretLeaseEventType } from "../kernel/bus.js";
import type { Context } from "../kernel/context.js";
import { environmentRepository } from "../secret-manager/environments/repository.js";
import { folderRepository } from "../secret-manager/folders/repository.js";
import type { DynamicSecretRow, LeaseRow } from "./tables.js";

/**
 * AUDIT HOOK and event — the single place a lease's creation, renewal and revocation is told:
 * an event on the bus (SSE subscribers registered for `dynamic-secret-lease:*` with
 * `subscribe-on-dynamic-secret-leases` receive it) and, once the audit log exists, its entry.
 * Neither ever carries the lease's credentials. A secret whose folder is gone announces nothing
 * (nobody can subscribe to a place that no longer exists).
 */
export async function announceLease(ctx: Context, eventType: DynamicSecretLeaseEventType, secret: DynamicSecretRow, lease: LeaseRow): Promise<void> {
  const env = await ctx.repo(environmentRepository).byId(secret.envId);
  const secretPath = env && (await ctx.repo(folderRepository).pathOf(env.id, secret.folderId));
  if (!env || secretPath === undefined) return;
  try {
    ctx.bus.publish({
      projectId: secret.projectId,
      projectType: "secret-manager",
      eventType,
      payload: { environment: env.slug, secretPath, dynamicSecretName: secret.name, leaseId: lease.id, expiresAt: lease.expiresAt, status: lease.status },
    });
  } catch {
    // The change is done; a failing subscriber must not turn it into an error answer.
  }
}
