import { defineCache, type Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import type { ProjectRow } from "../../access/tables.js";
import { type PreparedIssuer, prepareIssuer } from "../../x509/issuer.js";
import { certificateSealer } from "../sealing.js";
import type { CaRow } from "../tables.js";

/** What a CA's sealed key is bound to: sealed for one CA, it does not open on another's row. */
export const caKeyBinding = (caId: string): string => `ca:${caId}`;

/** Prepared issuers by CA id. A CA's key and certificate never change, so an entry never goes stale. */
const issuerCache = defineCache<PreparedIssuer>({ name: "ca-issuers", capacity: 256 });

/**
 * The CA ready to sign: its key opened and parsed once, then reused. The caller has already
 * checked the actor's access to the CA's project.
 */
export async function issuerOf(ctx: Context, project: ProjectRow, ca: CaRow): Promise<PreparedIssuer> {
  if (ca.status !== "active") throw new BadRequestError(`The CA '${ca.name}' is not active`);
  const cache = ctx.caches.get(issuerCache);
  const cached = cache.get(ca.id);
  if (cached) return cached;
  const sealer = await certificateSealer(ctx, project);
  const issuer = prepareIssuer({ certificatePem: ca.certificatePem, privateKeyPem: sealer.open(ca.sealedPrivateKey, caKeyBinding(ca.id)) });
  cache.set(ca.id, issuer);
  return issuer;
}
