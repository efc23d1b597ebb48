import { leaseRepository } from "../../dynamic-secrets/leases/repository.js";
import { defineRepository, type Context } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";
import { organizationRepository } from "../../tenancy/organizations/repository.js";
import type { CredentialDefinition } from "../brokering/credentials.js";
import { bundleRepository } from "../bundles/repository.js";
import { agentVaultTables, type CredentialRow, type ServiceRow } from "../tables.js";

/** Reading and writing proxied services and their credentials, below any permission check. */

/** Services in definition order (see `proxiedServices.position`). */
const DEFINITION_ORDER = { orderBy: [["position", "asc"], ["id", "asc"]] as ["position" | "id", "asc"][] };

export type NewService = Omit<ServiceRow, "position">;
export type ServiceChanges = Pick<ServiceRow, "name" | "hostPattern" | "isEnabled" | "updatedAt">;

/** Dynamic-secret leases held for these services go to the expiry job for revocation. */
const releaseLeasesOf = (tx: Context, serviceIds: readonly string[], reason: string) => tx.repo(leaseRepository).release({ serviceIds }, reason);

export const serviceRepository = defineRepository("agent-vault.services", (ctx) => {
  const t = tablesOf(ctx.storage, agentVaultTables);

  /** Replaces a service's credentials with `definitions`; inside the write's transaction. */
  const replaceCredentials = async (tx: Context, serviceId: string, definitions: readonly CredentialDefinition[], now: string) => {
    const w = tablesOf(tx.storage, agentVaultTables);
    await releaseLeasesOf(tx, [serviceId], "its proxied service's credentials were replaced");
    await w.proxiedServiceCredentials.delete({ serviceId });
    await w.proxiedServiceCredentials.insertMany(
      definitions.map((definition, position) => ({ id: newId(), serviceId, position, ...definition, createdAt: now })),
    );
  };

  /** Removes services with their credentials and their places in access bundles, in one transaction. */
  const remove = async (services: readonly Pick<ServiceRow, "id" | "projectId">[], at: string): Promise<void> => {
    if (services.length === 0) return;
    await ctx.withTransaction(async (tx) => {
      const w = tablesOf(tx.storage, agentVaultTables);
      const ids = new Set(services.map((s) => s.id));
      const serviceId = { in: [...ids] };
      await releaseLeasesOf(tx, [...ids], "its proxied service was removed");
      await w.proxiedServiceCredentials.delete({ serviceId });
      await w.proxiedServices.delete({ id: serviceId });
      await tx.repo(bundleRepository).dropServices([...new Set(services.map((s) => s.projectId))], ids, at);
    });
  };

  return {
    byId: (id: string): Promise<ServiceRow | undefined> => t.proxiedServices.get(id),
    byName: (folderId: string, name: string): Promise<ServiceRow | undefined> => t.proxiedServices.findOne({ folderId, name }),
    /** A folder's services in definition order. */
    inFolder: (folderId: string): Promise<ServiceRow[]> => t.proxiedServices.find({ folderId }, DEFINITION_ORDER),
    /** The services of several folders, in definition order. */
    inFolders: (folderIds: readonly string[]): Promise<ServiceRow[]> =>
      folderIds.length ? t.proxiedServices.find({ folderId: { in: [...folderIds] } }, DEFINITION_ORDER) : Promise.resolve([]),
    /** Every service of a project. */
    allOfProject: (projectId: string): Promise<ServiceRow[]> => t.proxiedServices.find({ projectId }),
    /** Services of a project among `ids`, in no particular order. */
    ofProject: (projectId: string, ids: readonly string[]): Promise<ServiceRow[]> =>
      ids.length ? t.proxiedServices.find({ id: { in: [...ids] }, projectId }) : Promise.resolve([]),
    /** An organization's enabled services in definition order. */
    enabledOfOrganization: (orgId: string): Promise<ServiceRow[]> => t.proxiedServices.find({ orgId, isEnabled: true }, DEFINITION_ORDER),
    /** Those of them among `ids`. */
    enabledAmong: (orgId: string, ids: readonly string[]): Promise<ServiceRow[]> =>
      ids.length ? t.proxiedServices.find({ id: { in: [...ids] }, orgId, isEnabled: true }, DEFINITION_ORDER) : Promise.resolve([]),

    /** Credentials of several services, each list in definition order. */
    async credentialsOf(serviceIds: readonly string[]): Promise<Map<string, CredentialRow[]>> {
      const byService = new Map<string, CredentialRow[]>(serviceIds.map((id) => [id, []]));
      if (serviceIds.length === 0) return byService;
      const rows = await t.proxiedServiceCredentials.find(
        { serviceId: serviceIds.length === 1 ? serviceIds[0] : { in: [...serviceIds] } },
        { orderBy: [["position", "asc"]] },
      );
      for (const row of rows) byService.get(row.serviceId)?.push(row);
      return byService;
    },

    /**
     * Creates a service with its credentials, in one transaction, after every other service of its
     * organization. The organization stays locked until the transaction ends, so two services never
     * share a position.
     */
    create: (service: NewService, definitions: readonly CredentialDefinition[]): Promise<ServiceRow> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, agentVaultTables);
        await tx.repo(organizationRepository).lock(service.orgId);
        const [last] = await w.proxiedServices.find({ orgId: service.orgId }, { orderBy: [["position", "desc"]], limit: 1 });
        const row: ServiceRow = { ...service, position: last ? last.position + 1 : 0 };
        await w.proxiedServices.insert(row);
        await replaceCredentials(tx, row.id, definitions, service.createdAt);
        return row;
      }),

    /** Changes a service and, when `definitions` are given, replaces its credentials, in one transaction. */
    update: (id: string, changes: ServiceChanges, definitions: readonly CredentialDefinition[] | undefined): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        await tablesOf(tx.storage, agentVaultTables).proxiedServices.update({ id }, changes);
        if (definitions) await replaceCredentials(tx, id, definitions, changes.updatedAt);
      }),

    /** Records that a proxy brokered a request with the service. */
    markUsed: async (id: string, at: string): Promise<void> => {
      await t.proxiedServices.update({ id }, { lastUsedAt: at });
    },

    remove,
    /** The cascade of folders the secret manager removed (see src/hooks.ts). */
    removeInFolders: async (folderIds: readonly string[], at: string): Promise<void> =>
      remove(await t.proxiedServices.find({ folderId: { in: [...folderIds] } }), at),
    /** The cascade of an environment the secret manager purged (see src/hooks.ts). */
    removeInEnvironment: async (envId: string, at: string): Promise<void> => remove(await t.proxiedServices.find({ envId }), at),
    /** Part of a project deletion (tenancy's `projectRemoved`, see src/hooks.ts). */
    removeInProject: async (projectId: string, at: string): Promise<void> => remove(await t.proxiedServices.find({ projectId }), at),
  };
});
