export { startAgentProxy, type AgentProxy, type AgentProxyOptions, type AgentProxyStop } from "./agent-proxy.js";
export { CA_PATH, type CaDocument } from "./proxy-server.js";
export { parseListen, type ListenAddress } from "./listen-address.js";
export { sessionTokenFrom } from "./proxy-authorization.js";
export { ProxyRevokedError, ControlPlaneUnavailableError, ControlPlaneRefusedError } from "./control-plane.js";
export type { ProxyLogger, RequestLogEntry, EventLogEntry } from "./request-log.js";
