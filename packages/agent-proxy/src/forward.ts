import type { IncomingMessage, ServerResponse } from "node:http";
import { applyCredentials, CredentialInjectionError, formatHostPort } from "@strongroom/core/agent";
import { ControlPlaneUnavailableError, ProxyRevokedError, type BrokerDecision, type ResolveDecision } from "./control-plane.js";
import { endToEndHeaders, endToEndRawHeaders } from "./hop-by-hop.js";
import { DestinationRefusedError, DestinationUnresolvedError, pinDestination, type Destination, type GuardOptions } from "./network-guard.js";
import { PROXY_AUTHENTICATE } from "./proxy-authorization.js";
import type { RequestLogEntry } from "./request-log.js";
import { sendRefusal, type Refusal } from "./refusals.js";
import type { LiveSession } from "./session-table.js";
import type { Upstream } from "./upstream.js";

/**
 * One agent request, from its session check to the upstream's answer: session, the server's
 * decision, the network guard, credential injection (only inside TLS), then the upstream. The
 * same path serves requests inside an intercepted CONNECT tunnel and absolute-form `http://` ones.
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
  session(token: string): Promise<LiveSession | null>;
  decide(session: LiveSession, token: string, target: Target): Promise<ResolveDecision | null>;
  readonly guard: GuardOptions;
  readonly upstream: Upstream;
  /** Largest body buffered for placeholder substitution. */
  readonly maxBufferedBody: number;
  log(entry: Omit<RequestLogEntry, "time">): void;
}

/** The log line being filled in as the request goes; written when the agent's response closes. */
type PendingEntry = Omit<RequestLogEntry, "time" | "status" | "durationMs">;

const CERTIFICATE_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME_INVALID/;

export async function forwardAgentRequest(runtime: ProxyRuntime, req: IncomingMessage, res: ServerResponse, target: Target, token: string | null): Promise<void> {
  const started = performance.now();
  const record: PendingEntry = { level: "info", msg: "request", method: req.method ?? "GET", host: target.host, port: target.port, tls: target.tls, action: "deny", reason: "", session: null };
  res.once("close", () => runtime.log({ ...record, status: res.statusCode, durationMs: Math.round((performance.now() - started) * 100) / 100 }));
  const refuse = (refusal: Refusal, headers?: Record<string, string | string[]>) => {
    if (!record.reason) record.reason = refusal.reason;
    else if (record.reason !== refusal.reason) record.error = refusal.reason;
    sendRefusal(res, refusal, headers);
    req.resume();
  };
  const host = target.host;

  if (token === null) {
    return refuse({ status: 407, reason: "proxy-authentication-required", message: "Send the agent session token in Proxy-Authorization (Bearer agv_…, or Basic with it as the password)" }, { "proxy-authenticate": PROXY_AUTHENTICATE });
  }
  const session = await runtime.session(token);
  if (!session) return refuse({ status: 403, reason: "session-not-live", message: "The agent session is unknown, expired or revoked", host });
  record.session = session.id;

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
    outgoing = await prepareOutgoing(req, target, credentials, runtime.maxBufferedBody);
  } catch (error) {
    if (error instanceof CredentialInjectionError) {
      // The message names the credential, never its value.
      return refuse({ status: 502, reason: "credential-refused", message: error.message, host });
    }
    if (error instanceof BodyTooLargeError) return refuse({ status: 413, reason: "body-too-large", message: error.message, host });
    throw error;
  }
  send(runtime, req, res, destination, target, outgoing, refuse);
}

interface Outgoing {
  path: string;
  headers: Record<string, string | string[]>;
  /** Null: stream the agent's body through unchanged. */
  body: Buffer | string | null;
}

async function prepareOutgoing(req: IncomingMessage, target: Target, credentials: BrokerDecision["credentials"], maxBody: number): Promise<Outgoing> {
  const headers = endToEndHeaders(req.headers);
  // The proxy answered any 100-continue itself; the upstream gets the body straight away.
  delete headers.expect;
  // The destination is the CONNECT target (or the absolute URL), so Host names it too: a different
  // Host would reach another virtual host on the same server with this host's credentials.
  headers.host = authority(target);
  if (req.headers["transfer-encoding"] !== undefined && headers["content-length"] === undefined) headers["transfer-encoding"] = "chunked";
  const rawTarget = req.url ?? "/";
  if (credentials.length === 0) return { path: rawTarget, headers, body: null };

  const queryAt = rawTarget.indexOf("?");
  const path = queryAt < 0 ? rawTarget : rawTarget.slice(0, queryAt);
  const query = queryAt < 0 ? "" : rawTarget.slice(queryAt + 1);
  const needsBody = credentials.some(({ credential }) => credential.role === "credential-substitution" && credential.substitutionSurfaces.includes("body"));
  const body = needsBody ? await readBody(req, maxBody) : null;
  const contentType = typeof req.headers["content-type"] === "string" ? req.headers["content-type"] : null;
  const injected = applyCredentials({ headers, path, query, body: body ?? "", contentType }, credentials);
  const outgoingHeaders = injected.headers as Record<string, string | string[]>;
  if (body !== null) {
    // The body is sent whole, so its length is known: no chunking.
    for (const name of Object.keys(outgoingHeaders)) if (name.toLowerCase() === "transfer-encoding") delete outgoingHeaders[name];
    outgoingHeaders["content-length"] = String(Buffer.byteLength(injected.body));
  }
  return {
    path: injected.path + (queryAt < 0 ? "" : `?${injected.query}`),
    headers: outgoingHeaders,
    body: body === null ? null : injected.body,
  };
}

function send(
  runtime: ProxyRuntime,
  req: IncomingMessage,
  res: ServerResponse,
  destination: Destination,
  target: Target,
  outgoing: Outgoing,
  refuse: (refusal: Refusal) => void,
): void {
  const upstream = runtime.upstream.request(destination, target.tls, { method: req.method ?? "GET", path: outgoing.path, headers: outgoing.headers });
  const host = target.host;
  upstream.on("response", (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEndRawHeaders(answer.rawHeaders));
    answer.pipe(res);
    answer.on("error", () => res.destroy());
  });
  upstream.on("timeout", () => {
    upstream.destroy();
    refuse({ status: 504, reason: "upstream-timeout", message: `${formatHostPort(host, target.port)} did not answer in time`, host });
  });
  upstream.on("error", (error: NodeJS.ErrnoException) => {
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
    if (!res.writableFinished) upstream.destroy();
  });
  if (outgoing.body !== null) upstream.end(outgoing.body);
  else req.pipe(upstream);
}

/** `host[:port]` for the Host header, the port left out when it is the scheme's default. */
function authority(target: Target): string {
  const defaultPort = target.tls ? 443 : 80;
  const host = target.host.includes(":") ? `[${target.host}]` : target.host;
  return target.port === defaultPort ? host : `${host}:${target.port}`;
}

class BodyTooLargeError extends Error {}

/** Listeners rather than async iteration: giving up on an iterator destroys the request, and the 413 with it. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off("data", onData);
      req.off("end", onEnd);
      reject(new BodyTooLargeError(`A body in which credentials are substituted may be at most ${limit} bytes`));
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", reject);
  });
}
