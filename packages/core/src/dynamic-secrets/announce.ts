import type { DynamicSecretLeaseEventType } from "../kernel/bus.js";
import type { Context } from "../kernel/context.js";
import { environmentRepository } from "../secret-manager/environments/repository.js";
import { folderRepository } from "../secret-manager/folders/repository.js";
import type { DynamicSecretRow, LeaseRow } from "./tables.js";

/**
 * The single place a lease's creation, renewal and revocation is told on the bus (SSE subscribers
 * registered for `dynamic-secret-lease:*` with `subscribe-on-dynamic-secret-leases` receive it);
 * never with the lease's credentials. Audit entries: a request's are its operation's
 * (`create-`/`renew-`/`delete-dynamic-secret-lease`), the expiry job records its own revocations,
 * and leases the server holds for agent proxies are covered by the resolve that brokered them. A secret whose folder is gone announces nothing
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
