import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { TLSSocket } from "node:tls";
import { parseAuthority, type Authority } from "../http/authority.js";
import type { ResolveDecision } from "../control/control-plane.js";
import type { DeniedHosts } from "./denied-hosts.js";
import type { ProxyRuntime, Target } from "./forward.js";
import type { LeafCertificates } from "../identity/leaf-certificates.js";
import { PROXY_AUTHENTICATE, sessionTokenFrom } from "../http/proxy-authorization.js";
import { HEADER_TIMEOUT, HeaderDeadline } from "./request-deadlines.js";
import { writeRawRefusal, type Refusal } from "./refusals.js";
import { presentToken, type LiveSession, type PresentedToken } from "../control/session-table.js";

/**
 * `CONNECT host:port`: the session is checked before the tunnel opens, and the session's tunnel
 * count; then the proxy looks at the first bytes. A TLS ClientHello is intercepted (the proxy
 * completes the handshake with a leaf for the CONNECT host, signed by its CA); anything else is
 * read as plain HTTP. Either way the agent's requests come out of `inner`, an HTTP server that
 * never listens, each one decided on its own. The destination is always the CONNECT target:
 * neither SNI, a Host header nor an absolute request target moves it.
 */
export interface Tunnel {
  readonly target: Target;
  readonly token: PresentedToken;
  /** Runs while the tunnel waits for request headers: from the 200 (first bytes, TLS handshake included) and between requests. */
  readonly deadline: HeaderDeadline;
}

const TLS_HANDSHAKE_RECORD = 0x16;
const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";

export class ConnectTunnels {
  readonly #tunnels = new WeakMap<Duplex, Tunnel>();
  readonly #runtime: ProxyRuntime;
  readonly #leaves: LeafCertificates;
  readonly #inner: Server;
  readonly #deniedHosts: DeniedHosts;
  readonly #warn: (message: string, details: Record<string, unknown>) => void;

  constructor(runtime: ProxyRuntime, leaves: LeafCertificates, inner: Server, deniedHosts: DeniedHosts, warn: (message: string, details: Record<string, unknown>) => void) {
    this.#runtime = runtime;
    this.#leaves = leaves;
    this.#inner = inner;
    this.#deniedHosts = deniedHosts;
    this.#warn = warn;
  }

  /** The tunnel an intercepted request arrived through. */
  of(socket: Duplex): Tunnel | undefined {
    return this.#tunnels.get(socket);
  }

  async accept(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    socket.on("error", () => socket.destroy());
    const started = performance.now();
    const authority = parseAuthority(req.url ?? "");
    let sessionId: string | null = null;
    const refuse = (refusal: Refusal, headers?: Record<string, string | string[]>, error?: string) => {
      writeRawRefusal(socket, refusal, headers);
      this.#runtime.log({
        level: "info",
        msg: "request",
        method: "CONNECT",
        host: authority?.host ?? null,
        port: authority?.port ?? null,
        tls: false,
        action: "deny",
        reason: refusal.reason,
        status: refusal.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        session: sessionId,
        ...(error ? { error } : {}),
      });
    };
    if (!authority) return refuse({ status: 400, reason: "invalid-destination", message: "CONNECT needs host:port" });
    const presented = sessionTokenFrom(req.headers["proxy-authorization"]);
    if (presented === null) {
      return refuse(
        { status: 407, reason: "proxy-authentication-required", message: "Send the agent session token in Proxy-Authorization (Bearer agv_…, or Basic with it as the password)" },
        { "proxy-authenticate": PROXY_AUTHENTICATE },
      );
    }
    const token = presentToken(presented);
    const session = await this.#runtime.session(token);
    if (!session) {
      return refuse({ status: 403, reason: "session-not-live", message: "The agent session is unknown, expired or revoked", host: authority.host });
    }
    sessionId = session.id;

    const decision = await this.#earlyDecision(session, token, authority);
    if (decision?.action === "deny" && !this.#deniedHosts.intercept(session.id, `${authority.host} ${authority.port}`)) {
      // Past the window's allowance the 403 is the CONNECT's own answer: no certificate is minted for it.
      return refuse({ status: decision.status, reason: decision.reason, message: decision.message, host: authority.host }, undefined, "denied-host-limit");
    }

    let secure: TLSSocket | undefined;
    let handshaken = false;
    const cut = () => {
      secure?.destroy();
      socket.destroy();
    };
    const closed = this.#runtime.activity.openTunnel(session.id);
    if (!closed) {
      const limit = this.#runtime.limits.maxTunnelsPerSession;
      return refuse({ status: 429, reason: "too-many-tunnels", message: `This session already has ${limit} tunnels open`, host: authority.host });
    }
    socket.once("close", closed);
    if (socket.destroyed) return closed();

    const deadline = new HeaderDeadline(this.#runtime.limits.headerTimeoutMs, (served) => {
      // A 408 can only be written where the agent can read it: on the plain tunnel, or inside TLS once it is up.
      const readable = served ? null : secure ? (handshaken ? secure : null) : socket;
      if (!readable) return cut();
      writeRawRefusal(readable, HEADER_TIMEOUT);
      setTimeout(cut, 1_000).unref();
    });
    socket.once("close", () => deadline.stop());
    socket.write(ESTABLISHED);
    if (head.length > 0) socket.unshift(head);
    socket.once("data", (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      const tls = first[0] === TLS_HANDSHAKE_RECORD;
      const tunnel: Tunnel = { target: { ...authority, tls }, token, deadline };
      if (!tls) return this.#serve(socket, tunnel);
      void this.#intercept(socket, tunnel, (intercepted) => {
        secure = intercepted;
        intercepted.once("secure", () => (handshaken = true));
      });
    });
  }

  /**
   * The decision for the CONNECT target, asked before the tunnel opens so that a denied host can
   * be refused outright once the session is past its allowance. Cached like every decision, so
   * the tunnel's first request does not ask again; when the server cannot be reached the tunnel
   * opens and that request reports it.
   */
  async #earlyDecision(session: LiveSession, token: PresentedToken, authority: Authority): Promise<ResolveDecision | null> {
    try {
      return await this.#runtime.decide(session, token, { ...authority, tls: true });
    } catch {
      return null;
    }
  }

  async #intercept(socket: Socket, tunnel: Tunnel, created: (secure: TLSSocket) => void): Promise<void> {
    let secureContext;
    try {
      secureContext = await this.#leaves.contextFor(tunnel.target.host);
    } catch (error) {
      this.#warn("could not issue a certificate for an intercepted host", { host: tunnel.target.host, error: (error as Error).message });
      return void socket.destroy();
    }
    if (socket.destroyed) return;
    const secure = new TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ["http/1.1"] });
    created(secure);
    secure.once("close", () => socket.destroy());
    secure.on("error", (error: NodeJS.ErrnoException) => {
      // Most often: the agent does not trust this proxy's CA (GET /_agent-vault/ca).
      this.#warn("TLS with an agent failed", { host: tunnel.target.host, error: error.code ?? error.message });
      secure.destroy();
    });
    this.#serve(secure, tunnel);
  }

  #serve(socket: Duplex, tunnel: Tunnel): void {
    this.#tunnels.set(socket, tunnel);
    this.#inner.emit("connection", socket);
    socket.resume();
  }
}
