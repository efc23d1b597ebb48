export { startAgentProxy, type AgentProxy, type AgentProxyOptions, type AgentProxyStop } from "./agent-proxy.js";
export { CA_PATH, type CaDocument } from "./server/proxy-server.js";
export { parseListen, type ListenAddress } from "./cli/listen-address.js";
export { sessionTokenFrom } from "./http/proxy-authorization.js";
export { ProxyRevokedError, ControlPlaneUnavailableError, ControlPlaneRefusedError } from "./control/control-plane.js";
export type { ProxyLogger, RequestLogEntry, EventLogEntry } from "./server/request-log.js";
