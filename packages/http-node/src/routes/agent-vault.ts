import type { Route } from "./route.js";

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
  { method: "POST", path: proxies, operation: "agentProxies.create", query: ["organizationId"] },
  { method: "GET", path: proxies, operation: "agentProxies.list", query: ["organizationId"] },
  { method: "GET", path: proxy, operation: "agentProxies.get" },
  { method: "PATCH", path: proxy, operation: "agentProxies.update" },
  { method: "DELETE", path: proxy, operation: "agentProxies.delete" },
  { method: "POST", path: `${proxy}/enrollment-token`, operation: "agentProxies.issueEnrollmentToken" },
  { method: "POST", path: `${proxy}/revoke`, operation: "agentProxies.revoke" },

  { method: "POST", path: "/api/v1/agent-vault/proxy/enroll", operation: "agentProxies.enroll" },
  { method: "POST", path: "/api/v1/agent-vault/proxy/heartbeat", operation: "agentProxies.heartbeat" },
  { method: "GET", path: "/api/v1/agent-vault/proxy/config", operation: "agentProxies.config" },
  { method: "POST", path: "/api/v1/agent-vault/proxy/resolve", operation: "agentProxies.resolve" },

  { method: "POST", path: bundles, operation: "accessBundles.create" },
  { method: "GET", path: bundles, operation: "accessBundles.list", query: ["projectId"] },
  { method: "GET", path: `${bundles}/{bundleId}`, operation: "accessBundles.get" },
  { method: "PATCH", path: `${bundles}/{bundleId}`, operation: "accessBundles.update" },
  { method: "DELETE", path: `${bundles}/{bundleId}`, operation: "accessBundles.delete" },

  { method: "POST", path: "/api/v1/agent-vault/sessions", operation: "agentSessions.create" },
  { method: "DELETE", path: "/api/v1/agent-vault/sessions/{sessionId}", operation: "agentSessions.revoke" },

  { method: "POST", path: services, operation: "proxiedServices.create" },
  { method: "GET", path: services, operation: "proxiedServices.list", query: ["projectId", "environment", "secretPath"] },
  { method: "GET", path: `${services}/{serviceId}`, operation: "proxiedServices.get" },
  { method: "PATCH", path: `${services}/{serviceId}`, operation: "proxiedServices.update" },
  { method: "DELETE", path: `${services}/{serviceId}`, operation: "proxiedServices.delete" },
];
