import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type OutgoingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { createSecureContext, rootCertificates } from "node:tls";
import type { Destination } from "./network-guard.js";

/**
 * Connections from the proxy to upstream servers, kept alive and pooled per checked address (and
 * per TLS server name). Upstream certificates are verified against the host the agent asked for,
 * with the system's trust store plus any CAs the operator adds (`upstreamCa`); `NODE_EXTRA_CA_CERTS`
 * works as usual when none are given.
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

export class Upstream {
  readonly #https: HttpsAgent;
  readonly #http: HttpAgent;
  readonly #timeoutMs: number;

  constructor(options: UpstreamOptions = {}) {
    // One TLS context for every upstream connection: passing `ca` instead would rebuild the trust
    // store per connection and put every root's PEM into the pool key of every request.
    const secureContext = createSecureContext(options.extraCa?.length ? { ca: [...rootCertificates, ...options.extraCa] } : {});
    this.#https = new HttpsAgent({ keepAlive: true, secureContext });
    this.#http = new HttpAgent({ keepAlive: true });
    this.#timeoutMs = options.timeoutMs ?? 60_000;
  }

  request(destination: Destination, tls: boolean, init: UpstreamRequest): ClientRequest {
    const common = {
      // The checked address, never the name: no second DNS answer can redirect the connection.
      host: destination.address,
      port: destination.port,
      method: init.method,
      path: init.path,
      headers: init.headers,
      timeout: this.#timeoutMs,
    };
    if (!tls) return httpRequest({ ...common, agent: this.#http });
    // SNI and certificate checks use the name; an IP literal is checked against the certificate's IP SANs.
    const servername = isIP(destination.host) ? undefined : destination.host;
    return httpsRequest({ ...common, agent: this.#https, ...(servername ? { servername } : {}) });
  }

  close(): void {
    this.#https.destroy();
    this.#http.destroy();
  }
}
