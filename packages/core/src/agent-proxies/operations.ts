import { agentProxyChannelOperations } from "./channel-operations.js";
import { agentProxyAdminOperations } from "./proxy-operations.js";

export { accessBundleOperations } from "./bundle-operations.js";
export { proxiedServiceOperations } from "./service-operations.js";
export { agentSessionOperations } from "./session-operations.js";

/** Administration of agent proxies and the endpoints the proxies themselves call, as one area. */
export const agentProxyOperations = { ...agentProxyAdminOperations, ...agentProxyChannelOperations };
