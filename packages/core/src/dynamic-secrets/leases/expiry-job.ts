import { recordHookEvent } from "../../audit/record.js";
import type { ScheduledJob } from "../../jobs/scheduler.js";
import { dynamicSecretRepository } from "../secrets/repository.js";
import { revokeLease } from "./lifecycle.js";
import { leaseRepository } from "./repository.js";

/** Leases looked at per run; the rest wait for the next minute. */
const BATCH = 200;

/**
 * Revokes leases whose time is up, and retries revocations that failed (a minute later, doubling
 * up to hourly). The scheduler's lease runs each period on one node, and each revocation claims its
 * lease first, so a lease revoked by a request at the same moment is not revoked twice. Every
 * outcome is recorded on the lease. Dynamic secrets retired with their folder are removed once
 * none of their leases is left to revoke.
 */
export const leaseExpiryJob: ScheduledJob = {
  name: "dynamic-secret-lease-expiry",
  intervalMs: 60_000,
  async run(ctx) {
    const secrets = ctx.repo(dynamicSecretRepository);
    const due = await ctx.repo(leaseRepository).dueForRevocation(ctx.clock.now().toISOString(), BATCH);
    for (const lease of due) {
      const secret = await secrets.byId(lease.dynamicSecretId);
      if (!secret) continue;
      const reason = lease.status === "active" ? "expired" : "retried by the expiry job";
      const outcome = await revokeLease(ctx, lease, secret, reason);
      // Requests record their own revocations; the job's are the platform's, in the project's chain.
      await recordHookEvent(ctx, {
        eventType: "delete-dynamic-secret-lease",
        outcome: outcome.revoked ? "success" : "failed",
        actor: { type: "platform", id: null, name: "dynamic-secret-lease-expiry" },
        orgId: secret.orgId,
        projectId: secret.projectId,
        metadata: { dynamicSecretId: secret.id, dynamicSecretName: secret.name, leaseId: lease.id, reason },
      });
    }
    for (const retired of await secrets.retiredWithoutLeases(BATCH)) await secrets.remove(retired.id);
  },
};
