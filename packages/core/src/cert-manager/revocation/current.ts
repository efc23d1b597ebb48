import type { ProjectRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { signCrl, type RevocationReason } from "../../x509/crl.js";
import { issuerOf } from "../authorities/issuer.js";
import { certificateRepository } from "../certificates/repository.js";
import type { CaRow, CrlRow } from "../tables.js";
import { crlRepository } from "./repository.js";

const HOUR = 3_600_000;
/** How long a CRL says it is good for. */
export const CRL_LIFETIME_MS = 7 * 24 * HOUR;
/** A CRL this close to its nextUpdate is re-signed when it is asked for, so relying parties never hold a stale one. */
const REFRESH_BEFORE_MS = 24 * HOUR;
/** Signings that lose the race to a concurrent one read again and retry; beyond this, the winner's CRL stands. */
const ATTEMPTS = 5;

/** Whether a stored CRL still says everything, for long enough, as of `now`. Pure. */
export function crlIsCurrent(crl: Pick<CrlRow, "revokedCount" | "nextUpdate">, revokedCount: number, now: Date): boolean {
  return crl.revokedCount === revokedCount && Date.parse(crl.nextUpdate) - now.getTime() > REFRESH_BEFORE_MS;
}

/**
 * Signs a new CRL for the CA listing every certificate it issued that is revoked, numbered one
 * past the current one, and stores it. The signing happens outside any transaction; a concurrent
 * signing that stored first makes this one read again, so the last stored CRL lists every
 * revocation committed before it was read.
 */
export async function refreshCrl(ctx: Context, project: ProjectRow, ca: CaRow): Promise<CrlRow> {
  const crls = ctx.repo(crlRepository);
  const issuer = await issuerOf(ctx, project, ca);
  for (let attempt = 1; ; attempt++) {
    const previous = await crls.current(ca.id);
    const revoked = await ctx.repo(certificateRepository).revokedBy(ca.id);
    const now = ctx.clock.now();
    const number = (previous?.number ?? 0) + 1;
    const nextUpdate = new Date(now.getTime() + CRL_LIFETIME_MS);
    const crlPem = await signCrl({
      issuer,
      number,
      thisUpdate: now,
      nextUpdate,
      revoked: revoked.map((row) => ({ serialNumber: row.serialNumber, revokedAt: new Date(row.revokedAt!), reason: row.revocationReason as RevocationReason })),
    });
    const at = now.toISOString();
    const next: CrlRow = {
      id: previous?.id ?? newId(),
      projectId: ca.projectId,
      caId: ca.id,
      number,
      revokedCount: revoked.length,
      crlPem,
      thisUpdate: at,
      nextUpdate: nextUpdate.toISOString(),
      createdAt: previous?.createdAt ?? at,
      updatedAt: at,
    };
    if (await crls.replace(previous, next)) return next;
    if (attempt >= ATTEMPTS) return (await crls.current(ca.id)) ?? next;
  }
}

/** The CA's CRL as it should be served now: the stored one while it is current, else a newly signed one. */
export async function currentCrl(ctx: Context, project: ProjectRow, ca: CaRow): Promise<CrlRow> {
  const stored = await ctx.repo(crlRepository).current(ca.id);
  const revokedCount = await ctx.repo(certificateRepository).countRevokedBy(ca.id);
  if (stored && crlIsCurrent(stored, revokedCount, ctx.clock.now())) return stored;
  return refreshCrl(ctx, project, ca);
}
