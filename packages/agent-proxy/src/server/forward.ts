import type { IncomingMessage, ServerResponse } from "node:http";
import { applyCredentials, CredentialInjectionError, formatHostPort } from "@strongroom/core/agent";
import type { BodyBudget } from "./body-budget.js";
import { BodyBudgetError, BodyIdleError, BodyTooLargeError, readBody } from "./buffered-body.js";
import { connectionReusable } from "../upstream/connection-reuse.js";
import { ControlPlaneUnavailableError, ProxyRevokedError, type BrokerDecision, type ResolveDecision } from "../control/control-plane.js";
import { credentialSetOf, scrubberFor } from "../brokering/credential-sets.js";
import { frameHeaders, lengthFraming, requestFraming, type RequestFraming } from "../http/framing.js";
import { endToEndHeaders } from "../http/hop-by-hop.js";
import type { ProxyLimits } from "./limits.js";
import { DestinationRefusedError, DestinationUnresolvedError, pinDestination, type Destination, type GuardOptions } from "../upstream/network-guard.js";
import { PROXY_AUTHENTICATE } from "../http/proxy-authorization.js";
import type { FormAutomaton } from "../brokering/reflection.js";
import type { RequestLogEntry } from "./request-log.js";
import { watchBodyIdle } from "./request-deadlines.js";
import { originFormProblem } from "../http/request-target.js";
import { sendRefusal, type Refusal } from "./refusals.js";
import { relayResponse, UnscrubbableResponseError } from "../brokering/response-relay.js";
import type { SessionActivity } from "./session-activity.js";
import type { LiveSession, PresentedToken } from "../control/session-table.js";
import type { Upstream, UpstreamPool } from "../upstream/upstream.js";

/**
 * One agent request, from its session check to the upstream's answer: request target and framing,
 * session, the server's decision, the network guard, credential injection (only inside TLS), then
 * the upstream, whose answer is scrubbed of what was injected. The same path serves requests
 * inside an intercepted CONNECT tunnel and absolute-form `http://` ones.
 */
export interface Target {
  /** Canonical host: lower case, IPv6 without brackets. */
  readonly host: string;
  readonly port: number;
  /** Whether the agent's connection to this target is TLS (intercepted), not plain HTTP. */
  readonly tls: boolean;
}

export interface ProxyRuntime {
  /** The live session a token opens, or null (unknown, expired or revoked). */
  session(token: PresentedToken): Promise<LiveSession | null>;
  decide(session: LiveSession, token: PresentedToken, target: Target): Promise<ResolveDecision | null>;
  readonly guard: GuardOptions;
  readonly upstream: Upstream;
  readonly limits: ProxyLimits;
  readonly bodyBudget: BodyBudget;
  readonly activity: SessionActivity;
  log(entry: Omit<RequestLogEntry, "time">): void;
}

/** The log line being filled in as the request goes; written when the agent's response closes. */
type PendingEntry = Omit<RequestLogEntry, "time" | "status" | "durationMs">;

type Refuse = (refusal: Refusal, headers?: Record<string, string | string[]>) => void;

type Credentials = BrokerDecision["credentials"];

const CERTIFICATE_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME_INVALID/;

export async function forwardAgentRequest(runtime: ProxyRuntime, req: IncomingMessage, res: ServerResponse, target: Target, token: PresentedToken | null): Promise<void> {
  const started = performance.now();
  const record: PendingEntry = { level: "info", msg: "request", method: req.method ?? "GET", host: target.host, port: target.port, tls: target.tls, action: "deny", reason: "", session: null };
  res.once("close", () => runtime.log({ ...record, status: res.statusCode, durationMs: Math.round((performance.now() - started) * 100) / 100 }));
  const framing = requestFraming(req.rawHeaders);
  const refuse: Refuse = (refusal, headers = {}) => {
    if (!record.reason) record.reason = refusal.reason;
    else if (record.reason !== refusal.reason) record.error = refusal.reason;
    // A body the proxy has not read is not drained: the connection closes after the answer.
    const close = framing.kind !== "none" && !req.complete;
    sendRefusal(res, refusal, close ? { ...headers, connection: "close" } : headers);
    req.resume();
  };
  const host = target.host;

  const targetProblem = originFormProblem(req.url ?? "");
  if (targetProblem) return refuse({ status: 400, reason: "invalid-request-target", message: targetProblem, host });
  if (framing.kind === "refused") return refuse({ status: 400, reason: "ambiguous-framing", message: framing.message, host });
  if (token === null) {
    return refuse({ status: 407, reason: "proxy-authentication-required", message: "Send the agent session token in Proxy-Authorization (Bearer agv_…, or Basic with it as the password)" }, { "proxy-authenticate": PROXY_AUTHENTICATE });
  }
  const session = await runtime.session(token);
  if (!session) return refuse({ status: 403, reason: "session-not-live", message: "The agent session is unknown, expired or revoked", host });
  record.session = session.id;

  // Cutting a request ends both sides at once: the session was revoked while it ran.
  const exchange: { upstream?: { destroy(): void } } = {};
  const ended = runtime.activity.beginRequest(session.id, () => {
    exchange.upstream?.destroy();
    res.destroy();
  });
  if (!ended) {
    return refuse({ status: 429, reason: "too-many-requests", message: `This session already has ${runtime.limits.maxRequestsPerSession} requests in progress`, host });
  }
  res.once("close", ended);

  let decision: ResolveDecision | null;
  try {
    decision = await runtime.decide(session, token, target);
  } catch (error) {
    if (!(error instanceof ControlPlaneUnavailableError || error instanceof ProxyRevokedError)) throw error;
    const message = error instanceof ProxyRevokedError ? "This agent proxy has been revoked" : "The proxy could not reach its server to decide this request";
    return refuse({ status: 502, reason: "decision-unavailable", message, host });
  }
  if (decision === null) return refuse({ status: 403, reason: "session-not-live", message: "The agent session is unknown, expired or revoked", host });
  record.action = decision.action;
  record.reason = decision.reason;
  if (decision.action === "deny") return refuse({ status: decision.status, reason: decision.reason, message: decision.message, host });
  if (decision.action === "broker") record.service = decision.service.id;

  let destination: Destination;
  try {
    destination = await pinDestination(host, target.port, runtime.guard);
  } catch (error) {
    if (error instanceof DestinationRefusedError) {
      record.action = "deny";
      record.reason = "destination-refused";
      return refuse({ status: 403, reason: "destination-refused", message: error.message, host });
    }
    if (error instanceof DestinationUnresolvedError) return refuse({ status: 502, reason: "destination-unresolved", message: error.message, host });
    throw error;
  }

  // Credentials travel only inside TLS, whatever the decision says.
  const credentials = decision.action === "broker" && target.tls ? decision.credentials : [];
  let outgoing: Outgoing;
  try {
    outgoing = await prepareOutgoing(runtime, req, target, credentials, framing);
  } catch (error) {
    if (error instanceof CredentialInjectionError) {
      // The message names the credential, never its value.
      return refuse({ status: 502, reason: "credential-refused", message: error.message, host });
    }
    if (error instanceof BodyTooLargeError) return refuse({ status: 413, reason: "body-too-large", message: error.message, host });
    if (error instanceof BodyBudgetError) return refuse({ status: 503, reason: "body-budget-exhausted", message: error.message, host }, { "retry-after": "1" });
    if (error instanceof BodyIdleError) return refuse({ status: 408, reason: "body-timeout", message: error.message, host });
    throw error;
  }
  const pool: UpstreamPool = { sessionId: session.id, credentialSet: credentialSetOf(credentials) };
  send(runtime, { req, res, destination, target, outgoing, refuse, pool, forms: scrubberFor(credentials), exchange });
}

interface Outgoing {
  path: string;
  headers: Record<string, string | string[]>;
  /** The body, buffered and already framed; or the agent's body to stream, with its framing. */
  body: { buffered: Buffer | string; release(): void } | { streamed: Exclude<RequestFraming, { kind: "refused" }> };
}

async function prepareOutgoing(runtime: ProxyRuntime, req: IncomingMessage, target: Target, credentials: Credentials, framing: Exclude<RequestFraming, { kind: "refused" }>): Promise<Outgoing> {
  const headers = endToEndHeaders(req.headers);
  // The proxy answered any 100-continue itself; the upstream gets the body straight away.
  delete headers.expect;
  // The destination is the CONNECT target (or the absolute URL), so Host names it too: a different
  // Host would reach another virtual host on the same server with this host's credentials.
  headers.host = authority(target);
  const rawTarget = req.url ?? "/";
  if (credentials.length === 0) return { path: rawTarget, headers: frameHeaders(headers, framing), body: { streamed: framing } };

  const queryAt = rawTarget.indexOf("?");
  const path = queryAt < 0 ? rawTarget : rawTarget.slice(0, queryAt);
  const query = queryAt < 0 ? "" : rawTarget.slice(queryAt + 1);
  const needsBody = framing.kind !== "none" && credentials.some(({ credential }) => credential.role === "credential-substitution" && credential.substitutionSurfaces.includes("body"));
  const { maxBufferedBodyBytes: maxBytes, bodyIdleTimeoutMs: idleMs } = runtime.limits;
  const read = needsBody ? await readBody(req, { maxBytes, idleMs, budget: runtime.bodyBudget }) : null;
  const contentType = typeof req.headers["content-type"] === "string" ? req.headers["content-type"] : null;
  let injected;
  try {
    injected = applyCredentials({ headers, path, query, body: read?.body ?? "", contentType }, credentials);
  } catch (error) {
    read?.release();
    throw error;
  }
  const injectedHeaders = withoutHeader(injected.headers as Record<string, string | string[]>, "accept-encoding");
  // The answer is scrubbed of what was injected, which a compressed body would hide.
  injectedHeaders["accept-encoding"] = "identity";
  return {
    path: injected.path + (queryAt < 0 ? "" : `?${injected.query}`),
    headers: read ? frameHeaders(injectedHeaders, lengthFraming(Buffer.byteLength(injected.body))) : frameHeaders(injectedHeaders, framing),
    body: read ? { buffered: injected.body, release: read.release } : { streamed: framing },
  };
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  destination: Destination;
  target: Target;
  outgoing: Outgoing;
  refuse: Refuse;
  pool: UpstreamPool;
  forms: FormAutomaton | null;
  exchange: { upstream?: { destroy(): void } };
}

function send(runtime: ProxyRuntime, { req, res, destination, target, outgoing, refuse, pool, forms, exchange }: Exchange): void {
  const method = req.method ?? "GET";
  const upstream = runtime.upstream.request(destination, target.tls, { method, path: outgoing.path, headers: outgoing.headers }, pool);
  exchange.upstream = upstream;
  const host = target.host;
  const facts = { requestSent: false, answeredEarly: false, responseComplete: false, interrupted: false };
  const abandon = () => {
    facts.interrupted = true;
    upstream.destroy();
  };
  upstream.once("finish", () => (facts.requestSent = true));
  upstream.on("response", (answer) => {
    facts.answeredEarly = !facts.requestSent;
    answer.once("end", () => {
      facts.responseComplete = true;
      // Node hands the connection back to its pool right after this; one whose pairing is in doubt must not go back.
      if (!connectionReusable(facts)) runtime.upstream.distrust(upstream.socket);
    });
    try {
      relayResponse(answer, res, method, forms);
    } catch (error) {
      if (!(error instanceof UnscrubbableResponseError)) throw error;
      abandon();
      refuse({ status: 502, reason: "response-unscrubbable", message: `The answer of ${formatHostPort(host, target.port)} cannot be checked for reflected credentials: ${error.message}`, host });
    }
  });
  upstream.on("timeout", () => {
    abandon();
    refuse({ status: 504, reason: "upstream-timeout", message: `${formatHostPort(host, target.port)} did not answer in time`, host });
  });
  upstream.on("error", (error: NodeJS.ErrnoException) => {
    facts.interrupted = true;
    if (res.headersSent || res.destroyed) return void res.destroy();
    const code = error.code ?? error.name;
    if (CERTIFICATE_ERRORS.test(code)) {
      refuse({ status: 502, reason: "upstream-certificate-untrusted", message: `The certificate of ${formatHostPort(host, target.port)} is not trusted (${code})`, host });
    } else {
      refuse({ status: 502, reason: "upstream-unreachable", message: `${formatHostPort(host, target.port)} could not be reached (${code})`, host });
    }
  });
  // An agent that goes away takes its upstream request with it.
  res.once("close", () => {
    if (!res.writableFinished) abandon();
  });

  const body = outgoing.body;
  if ("buffered" in body) {
    upstream.once("close", body.release);
    upstream.end(body.buffered);
  } else if (body.streamed.kind === "none") {
    upstream.end();
  } else {
    // Headers now, not with the first body byte: the upstream may answer (or refuse) before the body.
    upstream.flushHeaders();
    req.pipe(upstream);
    watchBodyIdle(req, runtime.limits.bodyIdleTimeoutMs, () => {
      abandon();
      refuse({ status: 408, reason: "body-timeout", message: `The request body sat idle for more than ${runtime.limits.bodyIdleTimeoutMs} ms`, host });
    });
  }
}

/** `host[:port]` for the Host header, the port left out when it is the scheme's default. */
function authority(target: Target): string {
  const defaultPort = target.tls ? 443 : 80;
  const host = target.host.includes(":") ? `[${target.host}]` : target.host;
  return target.port === defaultPort ? host : `${host}:${target.port}`;
}

/** Every case variant of `name` (lower case) removed, in place. */
function withoutHeader(headers: Record<string, string | string[]>, name: string): Record<string, string | string[]> {
  for (const key of Object.keys(headers)) if (key.length === name.length && key.toLowerCase() === name) delete headers[key];
  return headers;
}
