import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { projectScoped, queryBoolean } from "../../secret-manager/input-fields.js";
import { dynamicSecretName, dynamicSecretSchema, folderFields } from "../secrets/schemas.js";

/** Request and response shapes of leases, as Infisical's API and `@infisical/sdk` use them. */

const ttl = z.string().trim().min(1).max(32);
const leaseId = z.string().min(1).max(255);

export const createLeaseInput = projectScoped({
  ...folderFields,
  dynamicSecretName,
  ttl: ttl.optional().describe("How long the lease lives (default: the dynamic secret's defaultTTL; at most its maxTTL)"),
  config: z.unknown().optional().describe("Accepted for Infisical's clients; no provider here takes lease options"),
});

export const leaseRefInput = projectScoped({ ...folderFields, leaseId });

export const renewLeaseInput = projectScoped({
  ...folderFields,
  leaseId,
  ttl: ttl.optional().describe("Added to the current expiry (default: defaultTTL); the lease may not outlive maxTTL from its creation"),
});

export const revokeLeaseInput = projectScoped({
  ...folderFields,
  leaseId,
  isForced: queryBoolean.default(false).describe("Mark the lease revoked even when the provider cannot remove the user"),
});

export const listLeasesInput = projectScoped({ ...folderFields, name: dynamicSecretName });

/** A lease as Infisical answers it (`expireAt`), with `expiresAt` as `@infisical/sdk` types it. */
export const leaseSchema = z.object({
  id: uuid,
  dynamicSecretId: uuid,
  externalEntityId: z.string().describe("The user created at the provider"),
  version: z.int(),
  status: z.enum(["active", "revoking", "revoked"]),
  statusDetails: z.string().nullable().describe("The last revocation's outcome"),
  expireAt: isoDateTime,
  expiresAt: isoDateTime,
  revokedAt: isoDateTime.nullable(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const createLeaseOutput = z.object({
  lease: leaseSchema,
  dynamicSecret: dynamicSecretSchema,
  data: z.record(z.string(), z.string()).describe("The credentials (DB_USERNAME, DB_PASSWORD); answered only here, once"),
});

export const leaseOutput = z.object({ lease: leaseSchema });
export const leaseWithSecretOutput = z.object({ lease: leaseSchema.extend({ dynamicSecret: dynamicSecretSchema }) });
export const leaseListOutput = z.object({ leases: z.array(leaseSchema) });
