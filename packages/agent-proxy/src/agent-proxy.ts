import { parseListen, type ListenAddress } from "./cli/listen-address.js";
import { ConfigPoller, type PollScope } from "./control/config-poller.js";
import { ControlPlane, ProxyRevokedError, type ProxyState } from "./control/control-plane.js";
import { decisionKey, DecisionCache } from "./control/decision-cache.js";
import { establishEnrollment } from "./control/enrollment.js";
import { SessionGate } from "./control/session-gate.js";
import { LeafCertificates } from "./identity/leaf-certificates.js";
import { resolveLimits, type ProxyLimits } from "./server/limits.js";
import { BodyBudget } from "./server/body-budget.js";
import { DeniedHosts } from "./server/denied-hosts.js";
import type { ProxyRuntime } from "./server/forward.js";
import { ProxyServer } from "./server/proxy-server.js";
import { entryWriter, stdoutLogger, type ProxyLogger } from "./server/request-log.js";
import { SessionActivity } from "./server/session-activity.js";
import { Upstream } from "./upstream/upstream.js";

export interface AgentProxyOptions {
  /** The Strongroom server's base URL, e.g. `https://strongroom.example.com`. */
  server: string;
  /** One-time token from `POST /api/v1/agent-vault/proxies`; needed only until the proxy has enrolled. */
  enrollmentToken?: string;
  /** Where the CA, its sealed key and the sealed access token live. */
  dataDir: string;
  /** `host:port` or `{host, port}`; default `127.0.0.1:14322`. Port 0 picks a free port. */
  listen?: string | ListenAddress;
  /** Allow private, loopback and other non-public upstream addresses (never link-local or metadata). */
  allowPrivateTargets?: boolean;
  /** Extra PEM CAs trusted for upstream TLS (for internal services). */
  upstreamCa?: string | readonly string[];
  /** PEM CAs trusted for the Strongroom server's certificate (a private CA), on top of Node's roots. */
  serverCa?: string | readonly string[];
  /** 32 bytes sealing the data directory's secrets, instead of its key file. */
  sealingKey?: Buffer;
  /** Receives one JSON line per request and per lifecycle event; stdout by default. */
  logger?: ProxyLogger;
  /** Bounds on what agents can make the proxy hold (server/limits.ts; each has a default). */
  limits?: Partial<ProxyLimits>;
}

export type AgentProxyStop = { reason: "closed" } | { reason: "revoked"; message: string };

export interface AgentProxy {
  /** `http://host:port`: what agents use as their proxy. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly proxyId: string;
  readonly name: string;
  /** PEM of the CA agents must trust. */
  readonly caCertificate: string;
  readonly caFingerprint: string;
  /** Heartbeat and config poll now, instead of at the next `pollInterval`. */
  refresh(): Promise<void>;
  close(): Promise<void>;
  /** Settles when the proxy stops: closed by its owner, or revoked by the server. */
  readonly stopped: Promise<AgentProxyStop>;
}

const isLoopback = (hostname: string) => hostname === "localhost" || hostname === "[::1]" || /^127\./.test(hostname);

const DEFAULT_LISTEN: ListenAddress = { host: "127.0.0.1", port: 14322 };

/**
 * Starts an agent proxy: CA and enrollment (first start), the first config, the listener, then
 * the poll loop. Rejects when any of that fails, e.g. the server cannot be reached at start-up.
 */
export async function startAgentProxy(options: AgentProxyOptions): Promise<AgentProxy> {
  const write = entryWriter(options.logger ?? stdoutLogger);
  const event = (level: "info" | "warn" | "error", msg: string, details: Record<string, unknown> = {}) => write({ level, msg, ...details });
  const listen = typeof options.listen === "string" ? parseListen(options.listen) : (options.listen ?? DEFAULT_LISTEN);
  const limits = resolveLimits(options.limits);
  const controlPlane = new ControlPlane(options.server, options.serverCa ? { ca: [options.serverCa].flat() } : {});
  const serverUrl = new URL(controlPlane.baseUrl);
  if (serverUrl.protocol === "http:" && !isLoopback(serverUrl.hostname)) {
    event("warn", "the server URL is plain http: the proxy's token and the credential values it fetches cross the network unencrypted", {
      server: controlPlane.baseUrl,
    });
  }

  const enrolled = await establishEnrollment({
    dataDir: options.dataDir,
    controlPlane,
    ...(options.enrollmentToken !== undefined ? { enrollmentToken: options.enrollmentToken } : {}),
    ...(options.sealingKey ? { sealingKey: options.sealingKey } : {}),
    now: () => new Date(),
  });
  event("info", enrolled.enrolledNow ? "enrolled" : "resumed enrollment", { proxyId: enrolled.proxyId, caFingerprint: enrolled.ca.fingerprint });

  const sessions = new SessionGate((notBefore) => poller!.pollSessions(notBefore), { minGapMs: limits.unknownTokenPollGapMs });
  const decisions = new DecisionCache();
  const activity = new SessionActivity({ maxTunnels: limits.maxTunnelsPerSession, maxRequests: limits.maxRequestsPerSession });
  const deniedHosts = new DeniedHosts(limits.deniedHostsPerMinute);
  let stop: (reason: AgentProxyStop) => void = () => undefined;
  const stopped = new Promise<AgentProxyStop>((resolve) => (stop = resolve));
  let server: ProxyServer | undefined;
  let poller: ConfigPoller | undefined;
  const upstream = new Upstream({ timeoutMs: limits.upstreamTimeoutMs, ...(options.upstreamCa ? { extraCa: [options.upstreamCa].flat() } : {}) });

  // A session that is no longer live loses its requests in progress and its upstream connections at once.
  let live = new Set<string>();
  const applySessions = (state: ProxyState, scope: PollScope) => {
    sessions.update(state.sessions);
    if (scope === "full") decisions.clear();
    const now = Date.now();
    const previous = live;
    live = new Set(state.sessions.filter((session) => Date.parse(session.expiresAt) > now).map((session) => session.id));
    const cut = activity.cutAllBut(live);
    upstream.dropAllBut(live);
    deniedHosts.forgetAllBut(live);
    const ended = [...previous].filter((id) => !live.has(id));
    if (ended.length > 0) event("info", "sessions ended", { sessions: ended, cutRequests: cut });
  };

  let stopping: Promise<void> | undefined;
  const shutDown = (reason: AgentProxyStop): Promise<void> =>
    (stopping ??= (async () => {
      poller?.stop();
      decisions.clear();
      await server?.close();
      upstream.close();
      await controlPlane.close();
      stop(reason);
    })());
  const revoked = (error: ProxyRevokedError) => {
    event("error", "the server revoked this proxy's token; stopping", { proxyId: enrolled.proxyId, error: error.message });
    void shutDown({ reason: "revoked", message: error.message });
  };

  poller = await ConfigPoller.start(controlPlane, {
    refreshed: applySessions,
    unavailable(error) {
      event("warn", "server unreachable; serving from the last good config", { error: error.message });
    },
    revoked,
  });
  applySessions(poller.state, "sessions");

  const runtime: ProxyRuntime = {
    session: (token) => sessions.session(token),
    async decide(session, token, target) {
      const key = decisionKey(session.id, target.host, target.port, target.tls);
      try {
        return await decisions.get(key, () => controlPlane.resolve({ sessionToken: token.value, ...target }));
      } catch (error) {
        if (error instanceof ProxyRevokedError) revoked(error);
        throw error;
      }
    },
    guard: { allowPrivateTargets: options.allowPrivateTargets ?? false },
    upstream,
    limits,
    bodyBudget: new BodyBudget(limits.bufferedBodyBudgetBytes),
    activity,
    log: write,
  };
  const leaves = new LeafCertificates(enrolled.ca);
  server = new ProxyServer(runtime, leaves, deniedHosts, { certificate: enrolled.ca.certificatePem, fingerprint: enrolled.ca.fingerprint }, (msg, details) =>
    event("warn", msg, details),
  );
  let address;
  try {
    address = await server.listen(listen.host, listen.port);
  } catch (error) {
    await shutDown({ reason: "closed" });
    throw error;
  }
  const host = address.address;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
  event("info", "listening", { url, proxyId: enrolled.proxyId, pollInterval: poller.state.config.pollInterval });

  return {
    url,
    host,
    port: address.port,
    proxyId: enrolled.proxyId,
    name: enrolled.name,
    caCertificate: enrolled.ca.certificatePem,
    caFingerprint: enrolled.ca.fingerprint,
    refresh: () => poller!.refresh().then(() => undefined),
    close: () => shutDown({ reason: "closed" }),
    stopped,
  };
}
