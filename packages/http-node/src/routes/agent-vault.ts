import { operations } from "@strongroom/core";
import { del, get, patch, post, type Route } from "./route.js";

/**
 * Agent proxies, the endpoints the proxies call, access bundles, agent sessions and proxied
 * services (DESIGN.md §7). A user in several organizations names one with `organizationId` in the
 * query string, which keeps the registration body exactly SPEC.md's.
 */

const proxies = "/api/v1/agent-vault/proxies";
const proxy = `${proxies}/{proxyId}`;
const bundles = "/api/v1/agent-vault/access-bundles";
const services = "/api/v1/proxied-services";

export const agentVaultRoutes: readonly Route[] = [
  post(proxies, operations.agentProxies.create),
  get(proxies, operations.agentProxies.list),
  get(proxy, operations.agentProxies.get),
  patch(proxy, operations.agentProxies.update),
  del(proxy, operations.agentProxies.delete),
  post(`${proxy}/enrollment-token`, operations.agentProxies.issueEnrollmentToken),
  post(`${proxy}/revoke`, operations.agentProxies.revoke),

  post("/api/v1/agent-vault/proxy/enroll", operations.agentProxies.enroll),
  post("/api/v1/agent-vault/proxy/heartbeat", operations.agentProxies.heartbeat),
  get("/api/v1/agent-vault/proxy/config", operations.agentProxies.config),
  post("/api/v1/agent-vault/proxy/resolve", operations.agentProxies.resolve),

  post(bundles, operations.accessBundles.create),
  get(bundles, operations.accessBundles.list),
  get(`${bundles}/{bundleId}`, operations.accessBundles.get),
  patch(`${bundles}/{bundleId}`, operations.accessBundles.update),
  del(`${bundles}/{bundleId}`, operations.accessBundles.delete),

  post("/api/v1/agent-vault/sessions", operations.agentSessions.create),
  del("/api/v1/agent-vault/sessions/{sessionId}", operations.agentSessions.revoke),

  post(services, operations.proxiedServices.create),
  get(services, operations.proxiedServices.list),
  get(`${services}/{serviceId}`, operations.proxiedServices.get),
  patch(`${services}/{serviceId}`, operations.proxiedServices.update),
  del(`${services}/{serviceId}`, operations.proxiedServices.delete),
];
