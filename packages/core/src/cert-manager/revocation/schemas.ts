import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";

/** Infisical's CRL object (`id`, `crl`), with what a relying party checks besides. */
export const crlSchema = z.strictObject({
  id: uuid,
  caId: uuid,
  crl: z.string().describe("PEM (X509 CRL), signed by the CA"),
  crlNumber: z.int().describe("The cRLNumber extension: one higher at every re-signing"),
  revokedCount: z.int(),
  thisUpdate: isoDateTime,
  nextUpdate: isoDateTime,
});

export const crlListOutput = z.array(crlSchema);
