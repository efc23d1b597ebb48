export { createMetrics, type StrongroomMetrics, type ResponseReport, type AuditSinkLag, type StorageObserver, type PoolLoad } from "./registry.js";
export { instrumentStorage } from "./storage.js";
export { serveMetrics, METRICS_PATH, type MetricsServer } from "./server.js";
