import type { ProjectRow } from "../access/tables.js";
import { defineService, type Context } from "../kernel/context.js";
import { createLease, renewLease, secretTtls } from "./leases/lifecycle.js";
import { leaseRepository } from "./leases/repository.js";
import { openLeaseData } from "./sealing.js";
import { dynamicSecretRepository } from "./secrets/repository.js";
import type { DynamicSecretRow, LeaseRow } from "./tables.js";
import { MIN_TTL_MS } from "./ttl.js";

/**
 * Leases the server holds for agent proxies: one per (proxy, proxied service, dynamic secret) —
 * so the credentials of one service naming the same dynamic secret (a user and its password)
 * come from the same lease — its credentials sealed, renewed while the proxy keeps using it, replaced by a new lease when it can
 * be renewed no more (maxTTL), and handed to the expiry job when its proxy, service or bundle
 * goes away (`leaseRepository.release`) or when it stops being used (it then simply expires).
 */

/** A held lease is renewed once less than this share of defaultTTL is left. */
const RENEW_BELOW = 0.5;
/** A lease with less left than this is not handed out; a new one replaces it (unless the holder asks for more). */
const MIN_REMAINING_MS = 60_000;

export interface HeldCredential {
  readonly proxyId: string;
  /** The proxied service the credential belongs to. */
  readonly serviceId: string;
  readonly project: ProjectRow;
  /** The proxied service's folder, where the dynamic secret is looked up by name. */
  readonly folderId: string;
  readonly dynamicSecretName: string;
  readonly field: string;
  /** How long the proxy may keep using a value it was given (it caches decisions between polls). */
  readonly keptForMs: number;
}

/** Lease look-ups in flight per holder on this node, so concurrent requests share one new lease. */
const inFlight = defineService<Map<string, Promise<Record<string, string>>>>("held-lease-flights", () => new Map());

/** The credential's current value from its held lease, or what is missing (named for logs, never shown to agents). */
export async function heldCredentialValue(ctx: Context, held: HeldCredential): Promise<{ value: string } | { missing: string }> {
  const secret = await ctx.repo(dynamicSecretRepository).byName(held.folderId, held.dynamicSecretName);
  if (!secret) return { missing: `dynamic secret '${held.dynamicSecretName}'` };
  const flights = ctx.service(inFlight);
  const key = `${held.proxyId}\u0000${held.serviceId}\u0000${secret.id}`;
  let flight = flights.get(key);
  if (!flight) {
    flight = currentData(ctx, secret, held).finally(() => flights.delete(key));
    flights.set(key, flight);
  }
  const data = await flight;
  const value = data[held.field];
  return value === undefined ? { missing: `field '${held.field}' of dynamic secret '${held.dynamicSecretName}'` } : { value };
}

const open = (ctx: Context, lease: LeaseRow) => openLeaseData(ctx, lease.sealedWith!, lease.id, lease.sealedData!);

async function currentData(ctx: Context, secret: DynamicSecretRow, held: HeldCredential): Promise<Record<string, string>> {
  const leases = ctx.repo(leaseRepository);
  const [current, ...older] = await leases.heldBy(held.proxyId, held.serviceId, secret.id);
  // Two nodes may each have made one at once: the newest stays, the others go.
  if (older.length > 0) await leases.release({ leaseIds: older.map((l) => l.id) }, "a newer lease is held for its agent proxy");
  if (current && current.sealedData !== null) {
    const reused = await reuse(ctx, current, secret, Math.max(MIN_REMAINING_MS, held.keptForMs));
    if (reused) return open(ctx, reused);
  }
  const { data } = await createLease(ctx, secret, {
    holder: { proxyId: held.proxyId, serviceId: held.serviceId, dataKeyId: held.project.kmsSecretManagerKeyId },
  });
  if (current) await leases.release({ leaseIds: [current.id] }, "replaced by a newer lease for its agent proxy");
  return data;
}

/** The held lease, renewed when it is getting short; undefined when it should be replaced. */
async function reuse(ctx: Context, lease: LeaseRow, secret: DynamicSecretRow, minRemainingMs: number): Promise<LeaseRow | undefined> {
  const ttls = secretTtls(secret);
  const remaining = new Date(lease.expiresAt).getTime() - ctx.clock.now().getTime();
  if (remaining > ttls.defaultMs * RENEW_BELOW) return lease;
  const room = ttls.maxMs === null ? ttls.defaultMs : new Date(lease.createdAt).getTime() + ttls.maxMs - new Date(lease.expiresAt).getTime();
  const extension = Math.min(ttls.defaultMs, room);
  if (extension >= MIN_TTL_MS && remaining > 0) {
    const renewed = await renewLease(ctx, lease, secret, extension).catch(() => undefined);
    if (renewed) return renewed;
  }
  return remaining > minRemainingMs ? lease : undefined;
}
