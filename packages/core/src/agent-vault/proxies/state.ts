import type { z } from "zod";
import type { AppStorage as Storage } from "../../schema.js";
import type { BundleRow } from "../bundles/repository.js";
import type { proxyStateOutput } from "../channel/schemas.js";
import type { ProxyRow } from "./view.js";
import { toSettings } from "./view.js";
import { credentialsOf, DEFINITION_ORDER, serviceLocation, toServiceObject } from "../services/repository.js";
import { liveSessionsOf } from "../sessions/repository.js";

/**
 * What a proxy polls for: its settings, the sessions it honours (token hashes only), their bundles
 * and those bundles' enabled services with credential definitions. Values are not part of it;
 * the proxy asks for them per request (`resolve`).
 */
export async function proxyState(storage: Storage, proxy: ProxyRow, now: Date): Promise<z.input<typeof proxyStateOutput>> {
  const live = await liveSessionsOf(storage, proxy, now);
  const bundles = new Map<string, BundleRow>(live.map(({ bundle }) => [bundle.id, bundle]));
  const wanted = [...new Set([...bundles.values()].flatMap((bundle) => bundle.serviceIds))];
  const rows = wanted.length
    ? await storage.tables.proxiedServices.find({ id: { in: wanted }, orgId: proxy.orgId, isEnabled: true }, DEFINITION_ORDER)
    : [];
  const located = [];
  for (const row of rows) if (await serviceLocation(storage, row)) located.push(row);
  const listed = new Set(located.map((row) => row.id));
  const credentials = await credentialsOf(storage, [...listed]);

  return {
    config: toSettings(proxy),
    sessions: live.map(({ session }) => ({ id: session.id, tokenHash: session.tokenHash, bundleId: session.bundleId, expiresAt: session.expiresAt })),
    bundles: [...bundles.values()].map((bundle) => ({ id: bundle.id, name: bundle.name, serviceIds: bundle.serviceIds.filter((id) => listed.has(id)) })),
    services: located.map((row) => toServiceObject(row, credentials.get(row.id)!)),
  };
}
