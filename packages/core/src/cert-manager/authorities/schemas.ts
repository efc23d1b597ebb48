import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { projectIdField, recordId } from "../query-fields.js";
import { keyAlgorithmSchema } from "../schemas.js";

/** Request and response shapes of internal CAs (DESIGN.md §8). */

export const CA_TYPES = ["root", "intermediate"] as const;
export const CA_STATUSES = ["active"] as const;

export const certificateAuthoritySchema = z.strictObject({
  id: uuid,
  projectId: uuid,
  name: z.string(),
  type: z.enum(CA_TYPES),
  status: z.enum(CA_STATUSES),
  commonName: z.string(),
  keyAlgorithm: keyAlgorithmSchema,
  certificate: z.string().describe("PEM"),
  certificateChain: z.string().describe("PEM of the CAs above this one, nearest first; empty for a root"),
  serialNumber: z.string().describe("Lower-case hex"),
  notBefore: isoDateTime,
  notAfter: isoDateTime,
  parentCaId: uuid.nullable(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const createCaInput = z.object({
  projectId: projectIdField,
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "lower-case letters, digits and single hyphens"),
  type: z.enum(CA_TYPES),
  parentCaId: recordId.optional(),
  commonName: z.string().trim().min(1).max(64),
  keyAlgorithm: keyAlgorithmSchema,
  ttlDays: z.int().min(1).max(36_500),
});

export const listCasInput = z.object({ projectId: projectIdField });
export const caRefInput = z.object({ caId: recordId });

export const caOutput = z.object({ ca: certificateAuthoritySchema });
export const caListOutput = z.object({ cas: z.array(certificateAuthoritySchema) });

export type CertificateAuthorityObject = z.infer<typeof certificateAuthoritySchema>;
