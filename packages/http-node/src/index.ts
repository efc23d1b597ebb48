export { createHandler, type HandlerOptions, type StrongroomHandler, type StrongroomTarget } from "./handler.js";
export { listen, type ListenOptions, type RunningServer, type TlsMaterial } from "./server/listen.js";
export { createStrongroomServer, type StrongroomServer, type StrongroomServerOptions } from "./server/server.js";
export { readServerSettings, isLoopbackHost, type ServerEnv, type ServerSettings, type TlsFiles } from "./server/settings.js";
export { runServer } from "./server/run.js";
export { SERVER_VARIABLES, environmentWithFlags, type ServerVariable } from "./server/variables.js";
export { routes, get, post, patch, put, del, type HttpMethod, type Route, type RouteOptions } from "./routes/index.js";
export { Router, type RouteLookup, type RouteMatch, type RoutePlace } from "./router.js";
export { buildOpenApiDocument, operationIds, OPENAPI_PATH, DOCS_PATH } from "./openapi.js";
export {
  createMetrics,
  instrumentStorage,
  serveMetrics,
  METRICS_PATH,
  type StrongroomMetrics,
  type MetricsServer,
  type ResponseReport,
  type AuditSinkLag,
  type StorageObserver,
  type PoolLoad,
} from "./metrics/index.js";
export { formatSseFrame, writeSseFrame, pipeEventStream, subscriptionFrames, toSseFrame, SSE_HEADERS, type SseFrame, type SseOptions, type SseSource } from "./sse.js";
export { contentEtag, etagMatches } from "./etag.js";
export { STATUS_OF } from "./status.js";
export { RateLimiter, parseRateLimit, type RateLimitOptions } from "./rate-limit.js";
export { answerClientError } from "./client-error.js";
export { jsonLinesLogger, silentLogger, requestLine, type Logger, type LogEntry, type RequestLogEntry, type ErrorLogEntry } from "./logger.js";
export { bufferedLogger, type BufferedLogger } from "./log-writer.js";
export { toErrorResponse, type ErrorBody } from "./error-body.js";
export { newRequestId } from "./request-id.js";
