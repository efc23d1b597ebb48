import { setMaxListeners } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  BadRequestError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  type Actor,
  type AnyOperation,
  type Strongroom,
} from "@strongroom/core";
import { ClientGoneError, readJsonBody } from "./body.js";
import { bearerToken } from "./auth-header.js";
import { toErrorResponse } from "./error-body.js";
import { contentEtag, etagMatches } from "./etag.js";
import { assembleInput, queryInput, queryKeys, splitTarget } from "./input.js";
import { describeError, entryWriter, jsonLinesLogger, type Logger } from "./logger.js";
import { buildOpenApiDocument, OPENAPI_PATH, operationIds } from "./openapi.js";
import { RateLimiter, type RateLimitOptions } from "./rate-limit.js";
import { newRequestId } from "./request-id.js";
import { sendError, sendJson, sendJsonText } from "./respond.js";
import { Router } from "./router.js";
import { routes as defaultRoutes } from "./routes/index.js";
import type { Route } from "./routes/route.js";
import { pipeEventStream, subscriptionFrames } from "./sse.js";

/** What the adapter needs of a Strongroom instance. */
export type StrongroomTarget = Pick<Strongroom, "operations" | "call" | "authenticate">;

export interface HandlerOptions {
  /** Default: JSON lines on stdout. */
  logger?: Logger;
  /** Keep-alive `event: ping` interval on event streams. Default 15 000. */
  ssePingIntervalMs?: number;
  /** Unsent output an event stream may pile up before its client is dropped. Default 1 MiB. */
  sseMaxBufferedBytes?: number;
  /** Largest accepted request body. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Token buckets per client IP and per authenticated actor. Default off. */
  rateLimit?: RateLimitOptions | false;
  /** Default: every route of the server (`routes`). */
  routes?: readonly Route[];
}

export interface StrongroomHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** For graceful shutdown: ends every open event stream and asks clients not to reuse connections. */
  shutdown(): void;
  /** Requests not yet answered in full (open event streams included). */
  readonly inFlight: number;
  readonly openStreams: number;
  /** Resolves once no request is in flight. */
  whenIdle(): Promise<void>;
}

const MiB = 1024 * 1024;

/** A `node:http` request listener serving the Strongroom API. */
export function createHandler(strongroom: StrongroomTarget, options: HandlerOptions = {}): StrongroomHandler {
  const log = entryWriter(options.logger ?? jsonLinesLogger);
  const maxBodyBytes = options.maxBodyBytes ?? MiB;
  const sse = {
    pingIntervalMs: options.ssePingIntervalMs ?? 15_000,
    maxBufferedBytes: options.sseMaxBufferedBytes ?? MiB,
  };
  const limiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;

  const ids = operationIds(strongroom.operations);
  const served: Route[] = [];
  for (const route of options.routes ?? defaultRoutes) {
    if (ids.has(route.operation)) served.push(route);
    else log({ level: "warn", time: new Date().toISOString(), msg: "route not served: unknown operation", operation: route.operation.name, route: route.path });
  }
  const router = new Router(served);
  const queryKeysOf = new Map<Route, string[]>(served.map((route) => [route, queryKeys(route)]));
  let openApiText: string | undefined;

  const shutdown = new AbortController();
  // Every open event stream listens for shutdown; that many listeners is the design, not a leak.
  setMaxListeners(0, shutdown.signal);
  let inFlight = 0;
  let openStreams = 0;
  let idleWaiters: (() => void)[] = [];
  const whenIdle = () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));

  /** Runs one request; whatever it throws is turned into an error body by the caller. */
  async function serve(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    const method = req.method ?? "";
    const { path, search } = splitTarget(req.url ?? "");
    if (limiter) checkRate(limiter, `ip:${req.socket.remoteAddress ?? "unknown"}`);

    if (method === "GET" && path === OPENAPI_PATH) {
      state.route = OPENAPI_PATH;
      openApiText ??= JSON.stringify(buildOpenApiDocument(served, ids));
      sendJsonText(res, 200, openApiText);
      return;
    }

    const found = router.lookup(method, path);
    if (found.kind === "malformed") throw new BadRequestError("The request path is not valid percent-encoding");
    if (found.kind === "none") throw new NotFoundError(`Route ${method} ${path} not found`);
    const { route, params } = found.match;
    state.route = route.path;

    state.token = bearerToken(req.headers.authorization);
    const actor = await strongroom.authenticate(state.token);
    const actorKey = limiter && rateKey(actor);
    if (limiter && actorKey) checkRate(limiter, actorKey);

    const body = hasBody(req) ? await readJsonBody(req, maxBodyBytes) : {};
    const input = assembleInput(body, queryInput(queryKeysOf.get(route)!, search), params);
    const result = await strongroom.call(route.operation, actor, input);
    const status = route.status ?? 200;
    if (route.kind !== "sse") {
      if (!route.etag) {
        sendJson(res, status, result);
        return;
      }
      const text = result === undefined ? "{}" : JSON.stringify(result);
      const etag = contentEtag(text);
      if (etagMatches(req.headers["if-none-match"], etag)) {
        res.writeHead(304, { etag, "cache-control": "no-store" });
        res.end();
        return;
      }
      sendJsonText(res, status, text, { etag });
      return;
    }
    const source = (route.frames ?? subscriptionFrames)(result);
    openStreams++;
    try {
      await pipeEventStream(res, status, source, {
        ...sse,
        signal: shutdown.signal,
        onStreamError: (thrown) => logUnexpected(thrown, req, state, "event stream failed"),
      });
    } finally {
      openStreams--;
    }
  }

  function fail(thrown: unknown, req: IncomingMessage, res: ServerResponse, state: RequestState): void {
    if (thrown instanceof ClientGoneError) return;
    const error = toErrorResponse(thrown, state.reqId);
    if (error.unexpected) logUnexpected(thrown, req, state, "request failed");
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // An unread remainder of the body stays on the socket: the connection cannot be reused.
    const closeConnection = thrown instanceof PayloadTooLargeError;
    sendError(res, error, closeConnection ? { connection: "close" } : {});
  }

  function logUnexpected(thrown: unknown, req: IncomingMessage, state: RequestState, msg: string): void {
    log({
      level: "error",
      time: new Date().toISOString(),
      reqId: state.reqId,
      method: req.method ?? "",
      route: state.route,
      msg,
      error: describeError(thrown, state.token ? [state.token] : []),
    });
  }

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    const state: RequestState = { reqId: newRequestId(), route: null };
    // Errors of an aborted exchange surface as events; unheard, they would bring the process down.
    req.on("error", ignore);
    res.on("error", ignore);
    res.setHeader("x-request-id", state.reqId);
    if (shutdown.signal.aborted) res.setHeader("connection", "close");
    inFlight++;
    res.once("close", () => {
      if (--inFlight === 0) {
        for (const resolve of idleWaiters) resolve();
        idleWaiters = [];
      }
      log({
        level: "info",
        time: new Date().toISOString(),
        reqId: state.reqId,
        method: req.method ?? "",
        route: state.route,
        status: res.headersSent ? res.statusCode : 499,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      });
    });
    serve(req, res, state).catch((thrown) => {
      try {
        fail(thrown, req, res, state);
      } catch (failure) {
        logUnexpected(failure, req, state, "error response failed");
        res.destroy();
      }
    });
  };

  return Object.defineProperties(handler, {
    shutdown: { value: () => shutdown.abort() },
    whenIdle: { value: whenIdle },
    inFlight: { get: () => inFlight },
    openStreams: { get: () => openStreams },
  }) as StrongroomHandler;
}

interface RequestState {
  readonly reqId: string;
  /** Route template, for logs. */
  route: string | null;
  /** Kept only to scrub it out of logged errors. */
  token?: string;
}

function ignore(): void {}

/**
 * Whether the request carries a body at all (RFC 9112 §6.3: only a Content-Length or a
 * Transfer-Encoding announces one). Without one, reading would yield `{}` a stream event later.
 */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}


function checkRate(limiter: RateLimiter, key: string): void {
  const waitSeconds = limiter.take(key);
  if (waitSeconds > 0) throw new RateLimitError("Too many requests, slow down", Math.ceil(waitSeconds));
}

function rateKey(actor: Actor): string | undefined {
  switch (actor.type) {
    case "user":
      return `user:${actor.userId}`;
    case "identity":
      return `identity:${actor.identityId}`;
    case "agent-proxy":
      return `agent-proxy:${actor.proxyId}`;
    default:
      return undefined;
  }
}
