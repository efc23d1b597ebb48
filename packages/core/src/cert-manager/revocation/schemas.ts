import { z } from "zod";
import { fileOutput, isoDateTime, uuid } from "../../kernel/schemas.js";

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

/** Infisical's public CRL download names the CRL by its id (the `id` of the CA's CRL object, stable for the CA's life). */
export const crlDownloadInput = z.strictObject({ crlId: z.string().min(1).max(255) });

/** RFC 5280's CRL, DER-encoded, as relying parties fetch it (`openssl crl -inform DER`). */
export const CRL_MEDIA_TYPE = "application/pkix-crl";
export const crlDownloadOutput = fileOutput(CRL_MEDIA_TYPE);
