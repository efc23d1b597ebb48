import type { ProjectAccess } from "../../access/project-access.js";
import { actorPrincipal, type Actor } from "../../kernel/actor.js";
import { BadRequestError } from "../../kernel/errors.js";
import type { AgentVaultRow } from "../tables.js";
import type { AppStorage as Storage } from "../../schema.js";
import type { AccessBundleObject } from "./schemas.js";
import { serviceLocation, servicePermissionObject, type ServiceLocation, type ServiceRow } from "../services/repository.js";
import type { BundleGrant } from "../tables.js";

export type BundleRow = AgentVaultRow<"agentAccessBundles">;

export interface LocatedService {
  service: ServiceRow;
  location: ServiceLocation;
}

export function toBundleObject(bundle: BundleRow): AccessBundleObject {
  return {
    id: bundle.id,
    projectId: bundle.projectId,
    name: bundle.name,
    description: bundle.description,
    serviceIds: bundle.serviceIds,
    grants: bundle.grants,
    createdAt: bundle.createdAt,
    updatedAt: bundle.updatedAt,
  };
}

/** Whether the bundle is granted to this user or machine identity. */
export function holdsGrant(bundle: Pick<BundleRow, "grants">, principal: { kind: "user" | "identity"; id: string }): boolean {
  return bundle.grants.some((grant) => grant.type === principal.kind && grant.id === principal.id);
}

export const isGrantee = (bundle: BundleRow, actor: Actor): boolean => {
  const principal = actorPrincipal(actor);
  return principal !== undefined && holdsGrant(bundle, principal);
};

/** Services of a project by id with where they live, in the given order; 400 naming ids that are not such services. */
export async function locateProjectServices(storage: Storage, projectId: string, ids: readonly string[]): Promise<LocatedService[]> {
  const rows = ids.length ? await storage.tables.proxiedServices.find({ id: { in: [...ids] }, projectId }) : [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const located: LocatedService[] = [];
  const unknown: string[] = [];
  for (const id of ids) {
    const service = byId.get(id);
    const location = service && (await serviceLocation(storage, service));
    if (service && location) located.push({ service, location });
    else unknown.push(id);
  }
  if (unknown.length) throw new BadRequestError(`Not proxied services of this project: ${unknown.join(", ")}`);
  return located;
}

/** The services a stored bundle still holds (deleted ones drop out). */
export async function bundleServices(storage: Storage, bundle: BundleRow): Promise<LocatedService[]> {
  const rows = bundle.serviceIds.length ? await storage.tables.proxiedServices.find({ id: { in: bundle.serviceIds }, projectId: bundle.projectId }) : [];
  const located: LocatedService[] = [];
  for (const service of rows) {
    const location = await serviceLocation(storage, service);
    if (location) located.push({ service, location });
  }
  return located;
}

/** `action` on `proxied-services` for every service of a bundle, or without an object when it holds none. */
export function requireOnServices(access: ProjectAccess, action: string, located: readonly LocatedService[]): void {
  if (located.length === 0) access.require(action, "proxied-services");
  for (const { location } of located) {
    access.require(action, "proxied-services", servicePermissionObject(location));
  }
}

export function canReadServices(access: ProjectAccess, located: readonly LocatedService[]): boolean {
  if (located.length === 0) return access.can("read", "proxied-services");
  return located.every(({ location }) => access.can("read", "proxied-services", servicePermissionObject(location)));
}

export const uniqueIds = (ids: readonly string[]): string[] => [...new Set(ids)];

export function uniqueGrants(grants: readonly BundleGrant[]): BundleGrant[] {
  const seen = new Set<string>();
  return grants.filter((grant) => {
    const key = `${grant.type}:${grant.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Grantees must be users or machine identities of the bundle's organization; 400 naming the others. */
export async function checkGrantees(storage: Storage, orgId: string, grants: readonly BundleGrant[]): Promise<void> {
  const unknown: string[] = [];
  for (const grant of grants) {
    const known =
      grant.type === "user"
        ? await storage.tables.orgMemberships.findOne({ orgId, userId: grant.id })
        : await storage.tables.identities.findOne({ id: grant.id, orgId });
    if (!known) unknown.push(`${grant.type} ${grant.id}`);
  }
  if (unknown.length) throw new BadRequestError(`Not in this organization: ${unknown.join(", ")}`);
}
