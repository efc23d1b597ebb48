import { agentProxyChannelOperations } from "./channel/operations.js";
import { agentProxyAdminOperations } from "./proxies/operations.js";

export { accessBundleOperations } from "./bundles/operations.js";
export { proxiedServiceOperations } from "./services/operations.js";
export { agentSessionOperations } from "./sessions/operations.js";

/** Administration of agent proxies and the endpoints the proxies themselves call, as one area. */
export const agentProxyOperations = { ...agentProxyAdminOperations, ...agentProxyChannelOperations };
