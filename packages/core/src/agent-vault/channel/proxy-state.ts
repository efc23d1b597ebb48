import type { z } from "zod";
import type { Context } from "../../kernel/context.js";
import { toSettings } from "../proxies/view.js";
import { serviceLocation } from "../services/location.js";
import { serviceRepository } from "../services/repository.js";
import { toServiceObject } from "../services/view.js";
import { liveSessionsOf } from "../sessions/live.js";
import type { BundleRow, ProxyRow } from "../tables.js";
import type { proxyStateOutput } from "./schemas.js";

/**
 * What a proxy polls for: its settings, the sessions it honours (token hashes only), their bundles
 * and those bundles' enabled services with credential definitions. Values are not part of it;
 * the proxy asks for them per request (`resolve`).
 */
export async function proxyState(ctx: Context, proxy: ProxyRow, now: Date): Promise<z.input<typeof proxyStateOutput>> {
  const live = await liveSessionsOf(ctx, proxy, now);
  const bundles = new Map<string, BundleRow>(live.map(({ bundle }) => [bundle.id, bundle]));
  const wanted = [...new Set([...bundles.values()].flatMap((bundle) => bundle.serviceIds))];
  const services = ctx.repo(serviceRepository);
  const located = [];
  for (const row of await services.enabledAmong(proxy.orgId, wanted)) if (await serviceLocation(ctx, row)) located.push(row);
  const listed = new Set(located.map((row) => row.id));
  const credentials = await services.credentialsOf([...listed]);

  return {
    config: toSettings(proxy),
    sessions: live.map(({ session }) => ({ id: session.id, tokenHash: session.tokenHash, bundleId: session.bundleId, expiresAt: session.expiresAt })),
    bundles: [...bundles.values()].map((bundle) => ({ id: bundle.id, name: bundle.name, serviceIds: bundle.serviceIds.filter((id) => listed.has(id)) })),
    services: located.map((row) => toServiceObject(row, credentials.get(row.id)!)),
  };
}
