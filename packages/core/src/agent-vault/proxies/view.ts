import type { TrafficPolicy } from "../brokering/traffic.js";
import type { ProxyRow } from "../tables.js";
import type { ProxyAdminView, ProxySettings } from "./schemas.js";

/** A proxy that missed this many polls in a row is taken to be down. */
export const HEALTHY_POLLS = 3;

/** True while the last heartbeat is newer than three poll intervals. */
export function isProxyHealthy(proxy: Pick<ProxyRow, "heartbeat" | "pollInterval">, now: Date): boolean {
  if (proxy.heartbeat === null) return false;
  return now.getTime() - Date.parse(proxy.heartbeat) < HEALTHY_POLLS * proxy.pollInterval * 1000;
}

export function toAdminView(proxy: ProxyRow, now: Date): ProxyAdminView {
  return {
    id: proxy.id,
    name: proxy.name,
    heartbeat: proxy.heartbeat,
    isHealthy: isProxyHealthy(proxy, now),
    rootCaFingerprint: proxy.rootCaFingerprint,
    rootCaExpiresAt: proxy.rootCaExpiresAt,
    trafficPolicy: proxy.trafficPolicy as TrafficPolicy,
    allowedHosts: proxy.allowedHosts,
    pollInterval: proxy.pollInterval,
    createdAt: proxy.createdAt,
  };
}

export function toSettings(proxy: ProxyRow): ProxySettings {
  return {
    proxyId: proxy.id,
    name: proxy.name,
    trafficPolicy: proxy.trafficPolicy as TrafficPolicy,
    allowedHosts: proxy.allowedHosts,
    pollInterval: proxy.pollInterval,
  };
}
