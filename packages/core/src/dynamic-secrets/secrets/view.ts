import type { z } from "zod";
import type { DynamicSecretRow } from "../tables.js";
import type { dynamicSecretSchema } from "./schemas.js";

/** Where a secret lives, for its answer. */
export interface SecretPlace {
  environment: string;
  secretPath: string;
}

/** A dynamic secret as answers show it: metadata, never the inputs. */
export function toDynamicSecret(row: DynamicSecretRow, place: SecretPlace): z.input<typeof dynamicSecretSchema> {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    version: row.version,
    defaultTTL: row.defaultTtl,
    maxTTL: row.maxTtl,
    folderId: row.folderId,
    projectId: row.projectId,
    environment: place.environment,
    secretPath: place.secretPath,
    status: null,
    statusDetails: null,
    gatewayId: null,
    usernameTemplate: null,
    metadata: row.metadata,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
