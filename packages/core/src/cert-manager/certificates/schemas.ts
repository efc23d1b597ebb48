import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { pagination, projectIdField, recordId, searchField } from "../query-fields.js";
import { issuanceAttributesSchema } from "../schemas.js";

/** Request and response shapes of issuance and of stored certificates (DESIGN.md §8). */

export const CERTIFICATE_SOURCES = ["issued", "discovered"] as const;

export const issueCertificateInput = z.object({
  profileId: recordId,
  attributes: issuanceAttributesSchema.optional(),
  /** PEM PKCS #10; the certificate certifies its key and no private key is returned. */
  csr: z.string().min(1).max(65_536).optional(),
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

const sanSchema = z.object({ type: z.string(), value: z.string() });

/** A certificate Strongroom issued or found: public material and facts only. */
export const certificateRecordSchema = z.strictObject({
  id: uuid,
  projectId: uuid,
  source: z.enum(CERTIFICATE_SOURCES),
  status: z.enum(["active", "expired"]).describe("Whether notAfter has passed"),
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

export const certificateOutput = z.object({ certificate: certificateRecordSchema });
export const certificateListOutput = z.object({ certificates: z.array(certificateRecordSchema), totalCount: z.int() });

export type CertificateRecordObject = z.infer<typeof certificateRecordSchema>;
