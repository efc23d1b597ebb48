import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type OutgoingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import { createSecureContext, rootCertificates, type SecureContext } from "node:tls";
import type { Destination } from "./network-guard.js";

/**
 * Connections from the proxy to upstream servers. Kept alive, but pooled per (session, credential
 * set) and never shared between them: on a shared connection, anything that desynchronised one
 * request from its response would let one session's credentialed request be read as part of
 * another's. Within a pool, connections are per checked address and TLS server name. Upstream
 * certificates are verified against the host the agent asked for, with the system's trust store
 * plus any CAs the operator adds (`upstreamCa`); `NODE_EXTRA_CA_CERTS` works as usual when none are given.
 */
export interface UpstreamOptions {
  /** Extra PEM CAs trusted for upstream TLS, added to Node's bundled roots. */
  extraCa?: readonly string[];
  /** Idle time after which an upstream request is abandoned. Default 60 s. */
  timeoutMs?: number;
}

export interface UpstreamRequest {
  method: string;
  /** Request target in origin form: path and query. */
  path: string;
  headers: OutgoingHttpHeaders;
}

/** Whose connections a request may use. */
export interface UpstreamPool {
  readonly sessionId: string;
  /** Tells credential sets apart (a digest, never a value); the same for every request without credentials. */
  readonly credentialSet: string;
}

/**
 * The headers as Node's flat list: Node then writes them as they are, checking each name and
 * value as it does for an object, without first copying them one by one into the request's own
 * header map (the forwarded headers are final here; nothing sets another one later).
 */
function headerList(headers: OutgoingHttpHeaders): string[] {
  const list: (string | string[])[] = [];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value !== undefined) list.push(name, typeof value === "number" ? String(value) : value);
  }
  // Array values are repeated lines, as they are for an object (_http_outgoing's processHeader).
  return list as string[];
}

/** An idle kept-alive connection is closed after this long. */
const IDLE_CONNECTION_MS = 15_000;

/** Connections whose request/response pairing is in doubt: destroyed instead of going back to their pool. */
const distrusted = new WeakSet<Duplex>();

// keepSocketAlive is Node's documented hook for refusing to pool a socket.
class PoolAgent extends HttpAgent {
  override keepSocketAlive(socket: Duplex) {
    return !distrusted.has(socket) && (super.keepSocketAlive(socket) as unknown as boolean);
  }
}
class TlsPoolAgent extends HttpsAgent {
  override keepSocketAlive(socket: Duplex) {
    return !distrusted.has(socket) && (super.keepSocketAlive(socket) as unknown as boolean);
  }
}

export class Upstream {
  readonly #secureContext: SecureContext;
  readonly #timeoutMs: number;
  readonly #pools = new Map<string, Map<string, HttpAgent>>();

  constructor(options: UpstreamOptions = {}) {
    // One TLS context for every upstream connection: passing `ca` instead would rebuild the trust
    // store per connection and put every root's PEM into the pool key of every request.
    this.#secureContext = createSecureContext(options.extraCa?.length ? { ca: [...rootCertificates, ...options.extraCa] } : {});
    this.#timeoutMs = options.timeoutMs ?? 60_000;
  }

  request(destination: Destination, tls: boolean, init: UpstreamRequest, pool: UpstreamPool): ClientRequest {
    const common = {
      // The checked address, never the name: no second DNS answer can redirect the connection.
      host: destination.address,
      port: destination.port,
      method: init.method,
      path: init.path,
      headers: headerList(init.headers),
      timeout: this.#timeoutMs,
      agent: this.#agent(pool, tls),
    };
    if (!tls) return httpRequest(common);
    // SNI and certificate checks use the name; an IP literal is checked against the certificate's IP SANs.
    const servername = isIP(destination.host) ? undefined : destination.host;
    return httpsRequest({ ...common, ...(servername ? { servername } : {}) });
  }

  /** The connection will not carry another request: it is destroyed when its exchange ends. */
  distrust(socket: Duplex | null | undefined): void {
    if (socket) distrusted.add(socket);
  }

  /** Closes the connections of every session not in `live`. */
  dropAllBut(live: ReadonlySet<string>): void {
    for (const [sessionId, agents] of [...this.#pools]) {
      if (live.has(sessionId)) continue;
      this.#pools.delete(sessionId);
      for (const agent of agents.values()) agent.destroy();
    }
  }

  /** How many pools (session, credential set, scheme) exist; for tests and diagnostics. */
  get poolCount(): number {
    let count = 0;
    for (const agents of this.#pools.values()) count += agents.size;
    return count;
  }

  close(): void {
    this.dropAllBut(new Set());
  }

  #agent(pool: UpstreamPool, tls: boolean): HttpAgent {
    let agents = this.#pools.get(pool.sessionId);
    if (!agents) this.#pools.set(pool.sessionId, (agents = new Map()));
    const name = `${tls ? "https" : "http"} ${pool.credentialSet}`;
    let agent = agents.get(name);
    if (!agent) {
      const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
      agent = tls ? new TlsPoolAgent({ ...options, secureContext: this.#secureContext }) : new PoolAgent(options);
      agents.set(name, agent);
    }
    return agent;
  }
}
