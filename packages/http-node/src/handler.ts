import { setMaxListeners } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  BadRequestError,
  NOT_MODIFIED,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServiceUnavailableError,
  type Actor,
  type AnyOperation,
  type RequestContext,
  type Revalidation,
  type Strongroom,
} from "@strongroom/core";
import { ClientGoneError, readJsonBody } from "./body.js";
import { bearerToken } from "./auth-header.js";
import { TrustedProxies } from "./client-address.js";
import { toErrorResponse } from "./error-body.js";
import { answerEtag, etagMatches, quoted } from "./etag.js";
import { assembleInput, queryInput, queryKeys, splitTarget } from "./input.js";
import { describeError, entryWriter, jsonLinesLogger, type Logger } from "./logger.js";
import { docsRouteOf, sendDocs } from "./docs-page.js";
import type { ResponseReport } from "./metrics/registry.js";
import { buildOpenApiDocument, OPENAPI_PATH, operationIds } from "./openapi.js";
import { RateLimiter, type RateLimitOptions } from "./rate-limit.js";
import { newRequestId } from "./request-id.js";
import { sendError, sendFile, sendJson, sendJsonAnswer, sendJsonText } from "./respond.js";
import { Router } from "./router.js";
import { RevisionCache } from "./answers/revision-cache.js";
import { answerText } from "./answers/sliced-json.js";
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
  /**
   * Memory all event streams together may use — unsent output plus a fixed estimate per stream —
   * before new subscriptions are refused with 503 and Retry-After. Default 512 MiB.
   */
  sseMemoryBudgetBytes?: number;
  /** Largest accepted request body. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Token buckets per client IP and per authenticated actor. Default off. */
  rateLimit?: RateLimitOptions | false;
  /**
   * Token buckets per client address for the anonymous routes that take credentials (public
   * operations other than GETs: logins, token revocation, bootstrap). Default off here; the
   * server turns it on (20 per minute, burst 10; STRONGROOM_AUTH_RATE_LIMIT).
   */
  authRateLimit?: RateLimitOptions | false;
  /**
   * Proxies whose X-Forwarded-For is believed (STRONGROOM_TRUSTED_PROXIES): addresses or CIDR
   * blocks. Default none: the client is the socket peer.
   */
  trustedProxies?: TrustedProxies | readonly string[];
  /** Default: every route of the server (`routes`). */
  routes?: readonly Route[];
  /** Told about every answered request, as it is logged (metrics: `createMetrics().onResponse`). */
  onResponse?: (report: ResponseReport) => void;
  /**
   * Memory for answers of ETag routes kept by revision, served again while the stored state they
   * were made from is unchanged (each request still authenticated, authorized, audited and
   * checked against storage). Default 64 MiB; 0 turns it off.
   */
  revisionCacheBytes?: number;
}

export interface StrongroomHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /**
   * Starts a drain (graceful shutdown): readiness answers 503 from now on, every open event
   * stream ends at once with an `event: error` frame, new streams are refused with 503, and every
   * answer — to requests in flight and to those still arriving — carries `Connection: close`.
   */
  shutdown(): void;
  /** True once `shutdown` was called. */
  readonly draining: boolean;
  /** Requests not yet answered in full (open event streams included). */
  readonly inFlight: number;
  readonly openStreams: number;
  /** What the open event streams are estimated to hold in memory (see `sseMemoryBudgetBytes`). */
  readonly streamMemoryBytes: number;
  /** Resolves once no request is in flight. */
  whenIdle(): Promise<void>;
}

const MiB = 1024 * 1024;

/** How long an answer kept by revision is served: it holds secret values, kept in memory no longer than useful. */
const REVISION_CACHE_TTL_MS = 60_000;

/** Where load balancers ask whether to send traffic here (`/api/status` is liveness). */
export const READY_PATH = "/api/status/ready";

const drainingError = () => new ServiceUnavailableError("The server is shutting down", 1);

/** What one open event stream holds beside its unsent output: socket, buffers, subscription. */
export const STREAM_OVERHEAD_BYTES = 16 * 1024;

/** A `node:http` request listener serving the Strongroom API. */
export function createHandler(strongroom: StrongroomTarget, options: HandlerOptions = {}): StrongroomHandler {
  const log = entryWriter(options.logger ?? jsonLinesLogger);
  const maxBodyBytes = options.maxBodyBytes ?? MiB;
  const sse = {
    pingIntervalMs: options.ssePingIntervalMs ?? 15_000,
    maxBufferedBytes: options.sseMaxBufferedBytes ?? MiB,
  };
  const limiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;
  const authLimiter = options.authRateLimit ? new RateLimiter(options.authRateLimit) : undefined;
  const proxies = options.trustedProxies instanceof TrustedProxies ? options.trustedProxies : new TrustedProxies(options.trustedProxies ?? []);
  const sseMemoryBudget = options.sseMemoryBudgetBytes ?? 512 * MiB;
  const onResponse = options.onResponse;
  const revisionBytes = options.revisionCacheBytes ?? 64 * MiB;
  const revisions = revisionBytes > 0 ? new RevisionCache(revisionBytes, REVISION_CACHE_TTL_MS) : undefined;
  const streamResponses = new Set<ServerResponse>();
  // Summed over every stream at most once per 50 ms: a burst of subscriptions must not make it quadratic.
  let measured = { at: -Infinity, bytes: 0 };
  const streamMemory = () => {
    const now = performance.now();
    if (now - measured.at >= 50) {
      let bytes = 0;
      for (const res of streamResponses) bytes += res.writableLength;
      measured = { at: now, bytes };
    }
    return measured.bytes + streamResponses.size * STREAM_OVERHEAD_BYTES;
  };

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
  // Answers not yet started: told to close their connection when a drain begins.
  const unanswered = new Set<ServerResponse>();
  let idleWaiters: (() => void)[] = [];
  const whenIdle = () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));

  /** Runs one request; whatever it throws is turned into an error body by the caller. */
  async function serve(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    const method = req.method ?? "";
    const { path, search } = splitTarget(req.url ?? "");
    const request = requestContext(req, proxies);
    if (limiter) checkRate(limiter, `ip:${request.ip ?? "unknown"}`);

    const docsRoute = method === "GET" ? docsRouteOf(path) : undefined;
    if (docsRoute) {
      state.route = docsRoute;
      if (await sendDocs(res, path)) return;
      throw new NotFoundError(`Route ${method} ${path} not found`);
    }

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
    if (shutdown.signal.aborted && (path === READY_PATH || route.kind === "sse")) throw drainingError();
    if (route.kind === "sse" && streamMemory() + STREAM_OVERHEAD_BYTES > sseMemoryBudget) {
      throw new ServiceUnavailableError("Event streams on this node are at their memory budget; retry later or elsewhere", 5);
    }

    if (authLimiter && route.operation.audience === "public" && method !== "GET") checkRate(authLimiter, `auth:${request.ip ?? "unknown"}`);

    state.token = bearerToken(req.headers.authorization);
    const actor = await strongroom.authenticate(state.token, request);
    const actorKey = limiter && rateKey(actor);
    if (limiter && actorKey) checkRate(limiter, actorKey);

    const body = hasBody(req) ? await readJsonBody(req, maxBodyBytes) : {};
    const input = assembleInput(body, queryInput(queryKeysOf.get(route)!, search), params);
    // An ETag route whose operation has revisions revalidates before any answer is made: the
    // client holds the answer (304), or this node still does (the kept text, 200).
    let clientHolds = false;
    let kept: Buffer | undefined;
    const revalidation: Revalidation | undefined = route.etag
      ? {
          holds: (revision) => {
            clientHolds = etagMatches(req.headers["if-none-match"], quoted(revision));
            kept = clientHolds ? undefined : revisions?.get(revision);
            return clientHolds || kept !== undefined;
          },
        }
      : undefined;
    const result = revalidation ? await strongroom.call(route.operation, actor, input, revalidation) : await strongroom.call(route.operation, actor, input);
    const status = route.status ?? 200;
    if (result === NOT_MODIFIED) {
      const etag = quoted(revalidation!.revision!);
      if (kept) sendJsonText(res, status, kept, { etag });
      else {
        res.writeHead(304, { etag, "cache-control": "no-store" });
        res.end();
      }
      return;
    }
    if (route.kind === "file") {
      sendFile(res, status, result);
      return;
    }
    if (route.kind !== "sse") {
      // Big answers are serialized in slices, so other requests are served meanwhile.
      let text = result === undefined ? "{}" : answerText(result);
      if (typeof text !== "string") text = await text;
      if (!route.etag) {
        await sendJsonAnswer(res, status, text);
        return;
      }
      const revision = revalidation?.revision;
      if (revision !== undefined) {
        const headers = { etag: quoted(revision) };
        if (!revisions) return sendJsonAnswer(res, status, text, headers);
        const body = Buffer.from(text);
        revisions.set(revision, body);
        sendJsonText(res, status, body, headers);
        return;
      }
      let etag = answerEtag(text);
      if (typeof etag !== "string") etag = await etag;
      if (etagMatches(req.headers["if-none-match"], etag)) {
        res.writeHead(304, { etag, "cache-control": "no-store" });
        res.end();
        return;
      }
      await sendJsonAnswer(res, status, text, { etag });
      return;
    }
    const source = (route.frames ?? subscriptionFrames)(result);
    openStreams++;
    streamResponses.add(res);
    try {
      await pipeEventStream(res, status, source, {
        ...sse,
        signal: shutdown.signal,
        onStreamError: (thrown) => logUnexpected(thrown, req, state, "event stream failed"),
      });
    } finally {
      openStreams--;
      streamResponses.delete(res);
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
    else unanswered.add(res);
    inFlight++;
    res.once("close", () => {
      unanswered.delete(res);
      if (--inFlight === 0) {
        for (const resolve of idleWaiters) resolve();
        idleWaiters = [];
      }
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const status = res.headersSent ? res.statusCode : 499;
      log({ level: "info", time: new Date().toISOString(), reqId: state.reqId, method: req.method ?? "", route: state.route, status, durationMs });
      if (onResponse) {
        try {
          onResponse({ method: req.method ?? "", route: state.route, status, durationMs });
        } catch {
          // Metrics must never take a request down.
        }
      }
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

  const startDrain = () => {
    if (shutdown.signal.aborted) return;
    for (const res of unanswered) if (!res.headersSent) res.setHeader("connection", "close");
    unanswered.clear();
    shutdown.abort();
  };

  return Object.defineProperties(handler, {
    shutdown: { value: startDrain },
    draining: { get: () => shutdown.signal.aborted },
    whenIdle: { value: whenIdle },
    inFlight: { get: () => inFlight },
    openStreams: { get: () => openStreams },
    streamMemoryBytes: { get: streamMemory },
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


/** The caller as core sees it: the client's address (through trusted proxies) and user agent. */
function requestContext(req: IncomingMessage, proxies: TrustedProxies): RequestContext {
  const ip = proxies.clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"]);
  const userAgent = req.headers["user-agent"]?.slice(0, 512);
  return { ...(ip === undefined ? {} : { ip }), ...(userAgent === undefined ? {} : { userAgent }) };
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
