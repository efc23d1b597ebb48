import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { REVOCATION_REASONS } from "../../x509/crl.js";
import { pagination, projectIdField, recordId, searchField } from "../query-fields.js";
import { issuanceAttributesSchema } from "../schemas.js";

/** Request and response shapes of issuance and of stored certificates (DESIGN.md §8). */

export const CERTIFICATE_SOURCES = ["issued", "discovered"] as const;
export const CERTIFICATE_STATUSES = ["active", "expired", "revoked"] as const;

/** A boolean, or its spelling in a form or query string (Infisical's clients send both). */
const flag = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);

/** PEM PKCS #10; the certificate certifies its key and no private key is returned. */
const csr = z.string().min(1).max(65_536);

export const issueCertificateInput = z.object({
  profileId: recordId,
  attributes: issuanceAttributesSchema.optional(),
  csr: csr.optional(),
  /** Leave self-signed (root) certificates out of `certificateChain`. */
  removeRootsFromChain: flag.default(false),
});

/** Infisical's renewal: a new certificate like the old one, from now, with a new key (or for `csr`). */
export const renewCertificateInput = z.strictObject({
  certificateId: recordId,
  removeRootsFromChain: flag.default(false),
  csr: csr.optional(),
});

export const revokeCertificateInput = z.strictObject({
  certificateId: recordId,
  revocationReason: z.enum(REVOCATION_REASONS),
});

export const issuedCertificateSchema = z.strictObject({
  certificate: z.string().describe("PEM"),
  issuingCaCertificate: z.string().describe("PEM of the issuing CA; the certificate itself when self-signed"),
  certificateChain: z.string().describe("PEM of the issuing CA and the CAs above it, nearest first"),
  privateKey: z.string().optional().describe("PKCS #8 PEM; absent when a CSR was sent. Shown once, never stored"),
  serialNumber: z.string().describe("Lower-case hex"),
  certificateId: uuid,
});

export const issueCertificateOutput = z.object({ certificate: issuedCertificateSchema, status: z.literal("issued") });

/** Infisical's renewal answer: the issued fields at the top level; there are no certificate requests, so the request id is the certificate's. */
export const renewCertificateOutput = issuedCertificateSchema.extend({ certificateRequestId: uuid });

export const revokeCertificateOutput = z.strictObject({ message: z.string(), serialNumber: z.string(), revokedAt: isoDateTime });

const sanSchema = z.object({ type: z.string(), value: z.string() });

/** A certificate Strongroom issued or found: public material and facts only. */
export const certificateRecordSchema = z.strictObject({
  id: uuid,
  projectId: uuid,
  source: z.enum(CERTIFICATE_SOURCES),
  status: z.enum(CERTIFICATE_STATUSES).describe("revoked once revoked; otherwise whether notAfter has passed"),
  caId: uuid.nullable(),
  profileId: uuid.nullable(),
  commonName: z.string().nullable(),
  subject: z.string().describe("RFC 4514"),
  issuer: z.string().describe("RFC 4514"),
  subjectAltNames: z.array(sanSchema),
  serialNumber: z.string(),
  fingerprint: z.string().describe("SHA256: and upper-case hex pairs of the DER"),
  isCA: z.boolean(),
  keyAlgorithm: z.string().nullable().describe("Null for discovered certificates"),
  notBefore: isoDateTime,
  notAfter: isoDateTime,
  certificate: z.string().describe("PEM"),
  certificateChain: z.string().describe("PEM of the chain above it as issued or as the server presented it"),
  revokedAt: isoDateTime.nullable(),
  revocationReason: z.enum(REVOCATION_REASONS).nullable(),
  renewedFromCertificateId: uuid.nullable().describe("The certificate this one renewed"),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const listCertificatesInput = z.object({
  projectId: projectIdField,
  ...pagination,
  search: searchField.describe("Case-insensitive substring of the common name"),
  source: z.enum(CERTIFICATE_SOURCES).optional(),
});
export const certificateRefInput = z.object({ certificateId: recordId });

/** A profile's certificates (Infisical's path names the profile `id`). */
export const listProfileCertificatesInput = z.object({
  id: recordId,
  ...pagination,
  status: z.enum(CERTIFICATE_STATUSES).optional(),
  search: searchField.describe("Case-insensitive substring of the common name"),
});

/** A project's certificates by the project's slug (Infisical's `/api/v2/workspace/{slug}/certificates`). */
export const listProjectCertificatesInput = z.object({
  slug: z.string().min(1).max(255),
  ...pagination,
  status: z.enum(CERTIFICATE_STATUSES).optional(),
  commonName: searchField.describe("Case-insensitive substring of the common name"),
});

export const certificateOutput = z.object({ certificate: certificateRecordSchema });
export const certificateListOutput = z.object({ certificates: z.array(certificateRecordSchema), totalCount: z.int() });

export type CertificateRecordObject = z.infer<typeof certificateRecordSchema>;
