import { newId } from "../../kernel/ids.js";
import type { EnvironmentRow } from "../../access/tables.js";
import { rootFolder } from "../../secret-manager/folders/tree.js";
import type { FolderRef } from "../../secret-manager/secrets/model.js";
import type { AgentVaultRow } from "../tables.js";
import type { AppStorage as Storage } from "../../schema.js";
import type { Where } from "../../storage/table.js";
import type { CredentialDefinition, CredentialRole, HeaderPurpose, SubstitutionSurface } from "../brokering/credentials.js";
import type { ProxiedServiceObject } from "./schemas.js";

/** Reading and writing proxied services and their credentials, below any permission check. */

export type ServiceRow = AgentVaultRow<"proxiedServices">;
export type CredentialRow = AgentVaultRow<"proxiedServiceCredentials">;

/** Where a service lives. Absent when its environment or folder is gone: such a service is treated as gone too. */
export interface ServiceLocation {
  env: EnvironmentRow;
  folder: FolderRef;
}

/** The object a `proxied-services` check is made against: conditions on environment and path apply. */
export const servicePermissionObject = (location: ServiceLocation) => ({
  environment: location.env.slug,
  secretPath: location.folder.path,
});

export async function serviceLocation(storage: Storage, service: ServiceRow): Promise<ServiceLocation | undefined> {
  const env = await storage.tables.environments.get(service.envId);
  if (!env || env.deletedAt !== null) return undefined;
  if (service.folderId === env.id) return { env, folder: rootFolder(env.id) };
  const folder = await storage.tables.secretFolders.get(service.folderId);
  return folder && folder.envId === env.id ? { env, folder: { id: folder.id, path: folder.path } } : undefined;
}

/** Services in definition order (see `proxiedServices.position`). */
export const DEFINITION_ORDER = { orderBy: [["position", "asc"], ["id", "asc"]] as ["position" | "id", "asc"][] };

/** The position after every service of the organization. Run inside the creating transaction. */
export async function nextPosition(tx: Storage, orgId: string): Promise<number> {
  const [last] = await tx.tables.proxiedServices.find({ orgId }, { orderBy: [["position", "desc"]], limit: 1 });
  return last ? last.position + 1 : 0;
}

/** Credentials of several services, each list in definition order. */
export async function credentialsOf(storage: Storage, serviceIds: readonly string[]): Promise<Map<string, CredentialRow[]>> {
  const byService = new Map<string, CredentialRow[]>(serviceIds.map((id) => [id, []]));
  if (serviceIds.length === 0) return byService;
  const rows = await storage.tables.proxiedServiceCredentials.find(
    { serviceId: serviceIds.length === 1 ? serviceIds[0] : { in: serviceIds } },
    { orderBy: [["position", "asc"]] },
  );
  for (const row of rows) byService.get(row.serviceId)?.push(row);
  return byService;
}

/** Replaces a service's credentials with `definitions`. Run inside the write's transaction. */
export async function replaceCredentials(tx: Storage, serviceId: string, definitions: readonly CredentialDefinition[], now: string): Promise<void> {
  await tx.tables.proxiedServiceCredentials.delete({ serviceId });
  await tx.tables.proxiedServiceCredentials.insertMany(
    definitions.map((definition, position) => ({ id: newId(), serviceId, position, ...definition, createdAt: now })),
  );
}

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

/**
 * Removes services and everything that refers to them: their credentials and their places in
 * access bundles. Run inside a transaction.
 */
export async function deleteServices(tx: Storage, services: readonly Pick<ServiceRow, "id" | "projectId">[], now: string): Promise<void> {
  if (services.length === 0) return;
  const ids = new Set(services.map((s) => s.id));
  const serviceId = { in: [...ids] };
  await tx.tables.proxiedServiceCredentials.delete({ serviceId });
  await tx.tables.proxiedServices.delete({ id: serviceId });
  const projectIds = [...new Set(services.map((s) => s.projectId))];
  for (const bundle of await tx.tables.agentAccessBundles.find({ projectId: { in: projectIds } })) {
    const kept = bundle.serviceIds.filter((id) => !ids.has(id));
    if (kept.length !== bundle.serviceIds.length) await tx.tables.agentAccessBundles.update({ id: bundle.id }, { serviceIds: kept, updatedAt: now });
  }
}

/** Removes the services `where` finds: the cascade of a folder or environment the secret manager removed (see src/hooks.ts). */
export async function deleteServicesWhere(tx: Storage, where: Where<ServiceRow>, now: string): Promise<void> {
  await deleteServices(tx, await tx.tables.proxiedServices.find(where), now);
}
