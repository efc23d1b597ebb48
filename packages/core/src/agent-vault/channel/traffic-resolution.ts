import { accessRepository } from "../../access/repository.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { decideTraffic, type TrafficPolicy, type TrafficService } from "../brokering/traffic.js";
import { credentialValues } from "../services/credential-sources.js";
import { serviceLocation, type ServiceLocation } from "../services/location.js";
import { serviceRepository } from "../services/repository.js";
import { definitionOf } from "../services/view.js";
import type { BundleRow, CredentialRow, ProxyRow, ServiceRow } from "../tables.js";
import type { ResolveDecision } from "./schemas.js";

/**
 * One request's decision for one agent session, wired to storage: `decideTraffic` gets the proxy's
 * settings and the organization's enabled services in definition order, those of the session's
 * bundle flagged `bundled`. Only a broker decision reads secret values, and only its service's.
 */

export interface TrafficRequest {
  host: string;
  port: number;
  tls: boolean;
}

interface Candidate extends TrafficService<CredentialRow> {
  readonly row: ServiceRow;
}

/** Where each granted service lives; one whose folder or environment is gone is left out and grants nothing. */
async function locateGranted(ctx: Context, rows: readonly ServiceRow[], granted: ReadonlySet<string>): Promise<Map<string, ServiceLocation>> {
  const locations = new Map<string, ServiceLocation>();
  for (const row of rows) {
    if (!granted.has(row.id)) continue;
    const location = await serviceLocation(ctx, row);
    if (location) locations.set(row.id, location);
  }
  return locations;
}

/** A dynamic credential whose lease cannot be made (the database refuses, the limit is reached) has no value now. */
function unavailable(error: unknown): { missing: string } {
  if (error instanceof BadRequestError) return { missing: error.message };
  throw error;
}

export async function resolveTraffic(ctx: Context, proxy: ProxyRow, bundle: BundleRow, request: TrafficRequest): Promise<ResolveDecision> {
  const services = ctx.repo(serviceRepository);
  const rows = await services.enabledOfOrganization(proxy.orgId);
  const locations = await locateGranted(ctx, rows, new Set(bundle.serviceIds));
  const credentials = await services.credentialsOf([...locations.keys()]);
  const candidates: Candidate[] = rows.map((row) => ({
    id: row.id,
    hostPattern: row.hostPattern,
    isEnabled: row.isEnabled,
    bundled: locations.has(row.id),
    credentials: credentials.get(row.id) ?? [],
    row,
  }));

  const decision = decideTraffic({
    policy: proxy.trafficPolicy as TrafficPolicy,
    allowedHosts: proxy.allowedHosts,
    services: candidates,
    host: request.host,
    port: request.port,
    tls: request.tls,
  });
  if (decision.action === "passthrough") return { action: "passthrough", reason: decision.reason };
  if (decision.action === "deny") return { action: "deny", status: decision.status, reason: decision.reason, message: decision.message };

  const service = decision.service.row;
  const definitions = decision.credentials.map(definitionOf);
  const project = await ctx.repo(accessRepository).projectById(service.projectId);
  const resolved = project && (await credentialValues(ctx, project, locations.get(service.id)!.folder, definitions, proxy, service.id).catch(unavailable));
  if (resolved && "missing" in resolved) {
    ctx.log({ level: "warn", msg: "agent proxy: a credential has no value", proxyId: proxy.id, serviceId: service.id, reason: resolved.missing });
  }
  if (!resolved || "missing" in resolved) {
    // The agent sees this message: it names the service, never which secret is missing.
    return { action: "deny", status: 502, reason: "credential-unavailable", message: `Proxied service '${service.name}' has a credential without a value` };
  }
  await services.markUsed(service.id, ctx.clock.now().toISOString());
  return {
    action: "broker",
    reason: decision.reason,
    service: { id: service.id, name: service.name, hostPattern: service.hostPattern },
    credentials: definitions.map((definition, index) => ({
      credential: { ...definition, serviceId: service.id },
      value: resolved.values[index]!,
    })),
  };
}
