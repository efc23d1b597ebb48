import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { TLSSocket } from "node:tls";
import { parseAuthority } from "./authority.js";
import type { ProxyRuntime, Target } from "./forward.js";
import type { LeafCertificates } from "./leaf-certificates.js";
import { PROXY_AUTHENTICATE, sessionTokenFrom } from "./proxy-authorization.js";
import { writeRawRefusal, type Refusal } from "./refusals.js";

/**
 * `CONNECT host:port`: the session is checked before the tunnel opens; then the proxy looks at
 * the first bytes. A TLS ClientHello is intercepted (the proxy completes the handshake with a leaf
 * for the CONNECT host, signed by its CA); anything else is read as plain HTTP. Either way the
 * agent's requests come out of `inner`, an HTTP server that never listens, each one decided on
 * its own. The destination is always the CONNECT target: neither SNI nor a Host header moves it.
 */
export interface Tunnel {
  readonly target: Target;
  readonly token: string;
}

const TLS_HANDSHAKE_RECORD = 0x16;
const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";

export class ConnectTunnels {
  readonly #tunnels = new WeakMap<Duplex, Tunnel>();
  readonly #runtime: ProxyRuntime;
  readonly #leaves: LeafCertificates;
  readonly #inner: Server;
  readonly #warn: (message: string, details: Record<string, unknown>) => void;

  constructor(runtime: ProxyRuntime, leaves: LeafCertificates, inner: Server, warn: (message: string, details: Record<string, unknown>) => void) {
    this.#runtime = runtime;
    this.#leaves = leaves;
    this.#inner = inner;
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
    const refuse = (refusal: Refusal, headers?: Record<string, string | string[]>) => {
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
        session: null,
      });
    };
    if (!authority) return refuse({ status: 400, reason: "invalid-destination", message: "CONNECT needs host:port" });
    const token = sessionTokenFrom(req.headers["proxy-authorization"]);
    if (token === null) {
      return refuse(
        { status: 407, reason: "proxy-authentication-required", message: "Send the agent session token in Proxy-Authorization (Bearer agv_…, or Basic with it as the password)" },
        { "proxy-authenticate": PROXY_AUTHENTICATE },
      );
    }
    if (!(await this.#runtime.session(token))) {
      return refuse({ status: 403, reason: "session-not-live", message: "The agent session is unknown, expired or revoked", host: authority.host });
    }

    if (socket.destroyed) return;
    socket.write(ESTABLISHED);
    if (head.length > 0) socket.unshift(head);
    socket.once("data", (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      const tls = first[0] === TLS_HANDSHAKE_RECORD;
      const tunnel: Tunnel = { target: { ...authority, tls }, token };
      if (tls) void this.#intercept(socket, tunnel);
      else this.#serve(socket, tunnel);
    });
  }

  async #intercept(socket: Socket, tunnel: Tunnel): Promise<void> {
    let secureContext;
    try {
      secureContext = await this.#leaves.contextFor(tunnel.target.host);
    } catch (error) {
      this.#warn("could not issue a certificate for an intercepted host", { host: tunnel.target.host, error: (error as Error).message });
      return void socket.destroy();
    }
    if (socket.destroyed) return;
    const secure = new TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ["http/1.1"] });
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
