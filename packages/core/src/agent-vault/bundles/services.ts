import type { ProjectAccess } from "../../access/project-access.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { compileHostPatterns, hostPatternKey } from "../brokering/host-pattern.js";
import { requireCredentialReads } from "../services/credential-sources.js";
import { serviceLocation, servicePermissionObject, type ServiceLocation } from "../services/location.js";
import { serviceRepository } from "../services/repository.js";
import type { BundleRow, ServiceRow } from "../tables.js";

/**
 * The services a bundle holds, with where they live: managing a bundle takes the matching
 * `proxied-services` action on each, since the bundle hands their credentials to its grantees.
 */

export interface LocatedService {
  service: ServiceRow;
  location: ServiceLocation;
}

export const uniqueIds = (ids: readonly string[]): string[] => [...new Set(ids)];

/** Services of a project by id with where they live, in the given order; 400 naming ids that are not such services. */
export async function locateProjectServices(ctx: Context, projectId: string, ids: readonly string[]): Promise<LocatedService[]> {
  const rows = await ctx.repo(serviceRepository).ofProject(projectId, ids);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const located: LocatedService[] = [];
  const unknown: string[] = [];
  for (const id of ids) {
    const service = byId.get(id);
    const location = service && (await serviceLocation(ctx, service));
    if (service && location) located.push({ service, location });
    else unknown.push(id);
  }
  if (unknown.length) throw new BadRequestError(`Not proxied services of this project: ${unknown.join(", ")}`);
  return located;
}

/** The services a stored bundle still holds (deleted ones drop out). */
export async function bundleServices(ctx: Context, bundle: BundleRow): Promise<LocatedService[]> {
  const located: LocatedService[] = [];
  for (const service of await ctx.repo(serviceRepository).ofProject(bundle.projectId, bundle.serviceIds)) {
    const location = await serviceLocation(ctx, service);
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

/**
 * Pairs of a bundle's services that claim the same host (the same normalized pattern): the
 * proxy could not tell which one's credentials a request to it should carry. Overlapping but
 * different patterns (a wildcard and an exact host) are fine: §7's precedence decides. Pure.
 */
export function hostPatternClashes(services: readonly Pick<ServiceRow, "id" | "name" | "hostPattern">[]): string[] {
  const owners = new Map<string, Pick<ServiceRow, "id" | "name">>();
  const clashes: string[] = [];
  for (const service of services) {
    for (const pattern of compileHostPatterns(service.hostPattern)) {
      const key = hostPatternKey(pattern);
      const owner = owners.get(key);
      if (owner === undefined) owners.set(key, service);
      else if (owner.id !== service.id) clashes.push(`'${owner.name}' and '${service.name}' both claim ${pattern.text}`);
    }
  }
  return clashes;
}

/** 400 when two services of a bundle claim the same host pattern. */
export function assertDistinctHostPatterns(located: readonly LocatedService[]): void {
  const clashes = hostPatternClashes(located.map(({ service }) => service));
  if (clashes.length) throw new BadRequestError(`A bundle cannot hold two services with the same host pattern: ${clashes.join("; ")}`);
}

/**
 * 403 unless the actor may `readValue` every secret the credentials of these services use: a
 * bundle hands them to its grantees, so choosing its services or grantees is as strong as reading.
 */
export async function requireCredentialReadsOf(ctx: Context, access: ProjectAccess, located: readonly LocatedService[]): Promise<void> {
  const credentials = await ctx.repo(serviceRepository).credentialsOf(located.map(({ service }) => service.id));
  for (const { service, location } of located) await requireCredentialReads(ctx, access, location, credentials.get(service.id) ?? []);
}
