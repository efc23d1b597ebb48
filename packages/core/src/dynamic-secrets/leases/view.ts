import type { z } from "zod";
import type { LeaseRow, LeaseStatus } from "../tables.js";
import type { leaseSchema } from "./schemas.js";

/** A lease as answers show it: never its credentials. */
export function toLease(row: LeaseRow): z.input<typeof leaseSchema> {
  return {
    id: row.id,
    dynamicSecretId: row.dynamicSecretId,
    externalEntityId: row.externalEntityId,
    version: row.version,
    status: row.status as LeaseStatus,
    statusDetails: row.statusDetails,
    expireAt: row.expiresAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
