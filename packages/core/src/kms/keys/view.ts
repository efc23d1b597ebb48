import type { z } from "zod";
import type { KeyAlgorithm, KeyUsage } from "../algorithms/catalogue.js";
import type { CmekKeyRow } from "../tables.js";
import type { kmsKeySchema } from "./schemas.js";

/** A key as answers show it: never its material. */
export function toKmsKey(row: CmekKeyRow): z.input<typeof kmsKeySchema> {
  return {
    id: row.id,
    orgId: row.orgId,
    projectId: row.projectId,
    name: row.name,
    description: row.description,
    keyUsage: row.keyUsage as KeyUsage,
    algorithm: row.algorithm as KeyAlgorithm,
    encryptionAlgorithm: row.algorithm as KeyAlgorithm,
    version: row.version,
    isDisabled: row.isDisabled,
    rotationIntervalDays: row.rotationIntervalDays,
    nextRotationAt: row.nextRotationAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
