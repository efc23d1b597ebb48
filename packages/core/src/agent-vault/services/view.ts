import type { CredentialDefinition, CredentialRole, HeaderPurpose, SubstitutionSurface } from "../brokering/credentials.js";
import type { CredentialRow, ServiceRow } from "../tables.js";
import type { ProxiedServiceObject } from "./schemas.js";

/** A stored credential as the definition it was validated into. */
export function definitionOf(row: CredentialRow): CredentialDefinition & { id: string } {
  return {
    id: row.id,
    role: row.role as CredentialRole,
    secretKey: row.secretKey,
    dynamicSecretName: row.dynamicSecretName,
    dynamicSecretField: row.dynamicSecretField,
    headerName: row.headerName,
    headerPrefix: row.headerPrefix,
    headerPurpose: row.headerPurpose as HeaderPurpose | null,
    placeholderKey: row.placeholderKey,
    placeholderValue: row.placeholderValue,
    substitutionSurfaces: row.substitutionSurfaces as SubstitutionSurface[],
  };
}

export function toServiceObject(service: ServiceRow, credentials: readonly CredentialRow[]): ProxiedServiceObject {
  return {
    id: service.id,
    folderId: service.folderId,
    name: service.name,
    hostPattern: service.hostPattern,
    createdAt: service.createdAt,
    updatedAt: service.updatedAt,
    lastUsedAt: service.lastUsedAt,
    isEnabled: service.isEnabled,
    credentials: credentials.map((row) => ({ ...definitionOf(row), serviceId: row.serviceId })),
  };
}
