import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { announceLease } from "../announce.js";
import { withSecretProvider } from "../provider-call.js";
import { sealLeaseData } from "../sealing.js";
import type { DynamicSecretRow, LeaseRow } from "../tables.js";
import { leaseExpiry, readTtl, renewalExpiry, retryDelayMs } from "../ttl.js";
import { leaseRepository } from "./repository.js";

/**
 * A lease's life at the provider and in the table. Provider calls run outside any transaction
 * (they are network I/O); the table changes around them are single statements or take the
 * secret's row lock, so nodes never double-count a limit or revoke one lease twice at once.
 */

/** How long one revocation may hold its claim on a lease before another may try again. */
const CLAIM_MS = 2 * 60_000;

/** A TTL given by a caller: a 400 naming the field when it is not one. */
export function ttlMs(text: string, field: string): number {
  const read = readTtl(text, field);
  if ("problem" in read) throw new BadRequestError(read.problem);
  return read.ms;
}

/** The secret's own TTLs, which were checked when they were saved. */
export const secretTtls = (secret: DynamicSecretRow) => ({
  defaultMs: ttlMs(secret.defaultTtl, "defaultTTL"),
  maxMs: secret.maxTtl === null ? null : ttlMs(secret.maxTtl, "maxTTL"),
});

const limitReached = (limit: number) =>
  new BadRequestError(`This dynamic secret already has ${limit} active leases, the most it may have; revoke some first`);

export interface LeaseOptions {
  /** The TTL asked for; the secret's defaultTTL when absent. */
  readonly ttl?: string;
  /** Who the server holds the lease for (an agent proxy, for a proxied service): its credentials are then kept, sealed under `dataKeyId`. */
  readonly holder?: { proxyId: string; serviceId: string; dataKeyId: string };
}

/**
 * Creates a user at the provider and records the lease: `data` (the credentials) is returned to
 * the caller and stored only for a holder, sealed. Over the limit, nothing is created; should the
 * limit be reached between the check and the record, the new user is revoked again.
 */
export async function createLease(ctx: Context, secret: DynamicSecretRow, options: LeaseOptions): Promise<{ lease: LeaseRow; data: Record<string, string> }> {
  const ttls = secretTtls(secret);
  const now = ctx.clock.now();
  const expiry = leaseExpiry(now, options.ttl === undefined ? undefined : ttlMs(options.ttl, "ttl"), ttls.defaultMs, ttls.maxMs);
  if ("problem" in expiry) throw new BadRequestError(expiry.problem);
  const limit = ctx.config.dynamicSecretLeaseLimit;
  const leases = ctx.repo(leaseRepository);
  if ((await leases.countUnrevoked(secret.id)) >= limit) throw limitReached(limit);

  const created = await withSecretProvider(ctx, secret, (provider, call) => provider.create(call, expiry.expiresAt));
  const id = newId();
  const at = now.toISOString();
  const lease: LeaseRow = {
    id,
    orgId: secret.orgId,
    projectId: secret.projectId,
    dynamicSecretId: secret.id,
    externalEntityId: created.entityId,
    status: "active",
    statusDetails: null,
    version: 1,
    expiresAt: expiry.expiresAt.toISOString(),
    revokeAttempts: 0,
    nextAttemptAt: null,
    claimedUntil: null,
    revokedAt: null,
    holderProxyId: options.holder?.proxyId ?? null,
    holderServiceId: options.holder?.serviceId ?? null,
    sealedData: options.holder ? await sealLeaseData(ctx, options.holder.dataKeyId, id, created.data) : null,
    sealedWith: options.holder?.dataKeyId ?? null,
    createdAt: at,
    updatedAt: at,
  };
  let recorded = false;
  try {
    recorded = await leases.insertWithinLimit(lease, limit);
  } finally {
    if (!recorded) await undoCreation(ctx, secret, created.entityId);
  }
  if (!recorded) throw limitReached(limit);
  await announceLease(ctx, "dynamic-secret-lease:create", secret, lease);
  return { lease, data: { ...created.data } };
}

/** Removes a user whose lease could not be recorded; one that cannot be removed is logged (no credentials). */
async function undoCreation(ctx: Context, secret: DynamicSecretRow, entityId: string): Promise<void> {
  await withSecretProvider(ctx, secret, (provider, call) => provider.revoke(call, entityId)).catch((error: Error) =>
    ctx.log({ level: "error", msg: "dynamic secret: an unrecorded lease could not be revoked", dynamicSecretId: secret.id, entityId, error: error.message }),
  );
}

/** Renews an active lease by `ttlMs` (default the secret's defaultTTL) at the provider and in the table (see `renewalExpiry` for the bounds). */
export async function renewLease(ctx: Context, lease: LeaseRow, secret: DynamicSecretRow, ttlMs: number | undefined): Promise<LeaseRow> {
  if (lease.status !== "active") throw new BadRequestError(`The lease is ${lease.status === "revoked" ? "revoked" : "being revoked"}`);
  const ttls = secretTtls(secret);
  const renewal = renewalExpiry(
    { createdAt: new Date(lease.createdAt), expiresAt: new Date(lease.expiresAt) },
    ctx.clock.now(),
    ttlMs,
    ttls.defaultMs,
    ttls.maxMs,
  );
  if ("problem" in renewal) throw new BadRequestError(renewal.problem);
  await withSecretProvider(ctx, secret, (provider, call) => provider.renew(call, lease.externalEntityId, renewal.expiresAt));
  const renewed = await ctx.repo(leaseRepository).renewTo(lease.id, renewal.expiresAt.toISOString());
  if (!renewed) throw new BadRequestError("The lease was revoked meanwhile");
  await announceLease(ctx, "dynamic-secret-lease:renew", secret, renewed);
  return renewed;
}

async function revoked(ctx: Context, secret: DynamicSecretRow, lease: LeaseRow): Promise<Revocation> {
  await announceLease(ctx, "dynamic-secret-lease:revoke", secret, lease);
  return { revoked: true, lease };
}

export type Revocation = { revoked: true; lease: LeaseRow } | { revoked: false; lease: LeaseRow; message: string };

/**
 * Revokes a lease at the provider and records the outcome on it: `revoked`, or `revoking` with the
 * failure and the time of the next attempt (the expiry job retries). `force` records a failure as
 * revoked too (for a provider that is gone), saying so. A lease already revoked, or whose
 * revocation runs elsewhere right now, is left as it is.
 */
export async function revokeLease(ctx: Context, lease: LeaseRow, secret: DynamicSecretRow, reason: string, force = false): Promise<Revocation> {
  const leases = ctx.repo(leaseRepository);
  const now = ctx.clock.now();
  if (!(await leases.claim(lease.id, new Date(now.getTime() + CLAIM_MS).toISOString()))) {
    const current = (await leases.byId(lease.id)) ?? lease;
    if (current.status === "revoked") return { revoked: false, lease: current, message: "The lease is already revoked" };
    return { revoked: false, lease: current, message: "The lease is being revoked right now; try again shortly" };
  }
  const attempted = (await leases.byId(lease.id))?.revokeAttempts ?? lease.revokeAttempts;
  try {
    await withSecretProvider(ctx, secret, (provider, call) => provider.revoke(call, lease.externalEntityId));
    return revoked(ctx, secret, (await leases.markRevoked(lease.id, `Revoked: ${reason}`))!);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (force) return revoked(ctx, secret, (await leases.markRevoked(lease.id, `Forced (${reason}); the provider failed: ${message}`))!);
    const attempts = attempted + 1;
    const retryAt = new Date(ctx.clock.now().getTime() + retryDelayMs(attempts)).toISOString();
    const details = `${reason}: attempt ${attempts} failed: ${message}; next attempt at ${retryAt}`;
    return { revoked: false, lease: (await leases.markRevokeFailed(lease.id, details, attempts, retryAt))!, message };
  }
}
