import { defineCache, type Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import type { CertManagerRow } from "../tables.js";
import type { AccessRow } from "../../access/tables.js";
import type { KeyAlgorithm } from "../../x509/algorithms.js";
import type { CertificateAuthorityObject } from "./schemas.js";
import { type PreparedIssuer, prepareIssuer } from "../../x509/issuer.js";
import { certificateSealer } from "../sealing.js";

export type CaRow = CertManagerRow<"certificateAuthorities">;

export const caKeyBinding = (caId: string): string => `ca:${caId}`;

export function toCaObject(row: CaRow): CertificateAuthorityObject {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    type: row.type as CertificateAuthorityObject["type"],
    status: row.status as CertificateAuthorityObject["status"],
    commonName: row.commonName,
    keyAlgorithm: row.keyAlgorithm as KeyAlgorithm,
    certificate: row.certificatePem,
    certificateChain: row.certificateChain,
    serialNumber: row.serialNumber,
    notBefore: row.notBefore,
    notAfter: row.notAfter,
    parentCaId: row.parentCaId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Prepared issuers by CA id. A CA's key and certificate never change, so an entry never goes stale. */
const issuerCache = defineCache<PreparedIssuer>({ name: "ca-issuers", capacity: 256 });

/**
 * The CA ready to sign: its key opened and parsed once, then reused. The caller has already
 * checked the actor's access to the CA's project.
 */
export async function issuerOf(ctx: Context, project: AccessRow<"projects">, ca: CaRow): Promise<PreparedIssuer> {
  if (ca.status !== "active") throw new BadRequestError(`The CA '${ca.name}' is not active`);
  const cache = ctx.caches.get(issuerCache);
  const cached = cache.get(ca.id);
  if (cached) return cached;
  const sealer = await certificateSealer(ctx, project);
  const issuer = prepareIssuer({ certificatePem: ca.certificatePem, privateKeyPem: sealer.open(ca.sealedPrivateKey, caKeyBinding(ca.id)) });
  cache.set(ca.id, issuer);
  return issuer;
}
