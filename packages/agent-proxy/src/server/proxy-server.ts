import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { parseAbsoluteHttp } from "../http/authority.js";
import { ConnectTunnels } from "./connect-tunnel.js";
import type { DeniedHosts } from "./denied-hosts.js";
import { forwardAgentRequest, type ProxyRuntime } from "./forward.js";
import type { LeafCertificates } from "../identity/leaf-certificates.js";
import { sessionTokenFrom } from "../http/proxy-authorization.js";
import { presentToken } from "../control/session-table.js";
import { HEADER_TIMEOUT, HeaderDeadline } from "./request-deadlines.js";
import { sendRefusal, writeRawRefusal } from "./refusals.js";

/**
 * The listener agents talk to: CONNECT tunnels, absolute-form `http://` requests, and the proxy's
 * own `GET /_agent-vault/ca`, which hands out the CA certificate agents must trust.
 */
export const CA_PATH = "/_agent-vault/ca";

export interface CaDocument {
  certificate: string;
  fingerprint: string;
}

export class ProxyServer {
  readonly #outer: Server;
  readonly #inner: Server;
  readonly #sockets = new Set<Socket>();
  readonly #deadlines = new WeakMap<Socket, HeaderDeadline>();

  constructor(
    runtime: ProxyRuntime,
    leaves: LeafCertificates,
    deniedHosts: DeniedHosts,
    ca: CaDocument,
    warn: (message: string, details: Record<string, unknown>) => void,
  ) {
    const fail = (res: ServerResponse) => (error: unknown) => {
      warn("an agent request failed", { error: error instanceof Error ? error.message : String(error) });
      sendRefusal(res, { status: 502, reason: "proxy-error", message: "The proxy failed to handle this request" });
    };
    this.#inner = createServer((req, res) => {
      const tunnel = tunnels.of(req.socket);
      if (!tunnel) return void res.destroy();
      tunnel.deadline.requestStarted(res);
      forwardAgentRequest(runtime, req, res, tunnel.target, tunnel.token).catch(fail(res));
    });
    const tunnels = new ConnectTunnels(runtime, leaves, this.#inner, deniedHosts, warn);
    const caBody = JSON.stringify(ca);

    // The outer server listens, so Node could time headers itself, but only as often as it checks
    // (every 30 s by default); the same deadline as inside tunnels keeps both sides alike.
    this.#outer = createServer({ requestTimeout: 0, headersTimeout: runtime.limits.headerTimeoutMs }, (req, res) => {
      this.#deadlines.get(req.socket as Socket)?.requestStarted(res);
      const absolute = parseAbsoluteHttp(req.url ?? "");
      if (absolute) {
        req.url = absolute.path;
        const target = { ...absolute.authority, tls: false };
        const token = sessionTokenFrom(req.headers["proxy-authorization"]);
        return void forwardAgentRequest(runtime, req, res, target, token === null ? null : presentToken(token)).catch(fail(res));
      }
      this.#answerOwn(req, res, caBody);
    });
    this.#outer.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => {
      // From here the tunnel keeps its own header deadline.
      this.#deadlines.get(socket)?.stop();
      tunnels.accept(req, socket, head).catch((error: unknown) => {
        warn("a CONNECT failed", { error: error instanceof Error ? error.message : String(error) });
        socket.destroy();
      });
    });
    this.#outer.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      const deadline = new HeaderDeadline(runtime.limits.headerTimeoutMs, (served) => (served ? socket.destroy() : writeRawRefusal(socket, HEADER_TIMEOUT)));
      this.#deadlines.set(socket, deadline);
      socket.once("close", () => {
        deadline.stop();
        this.#sockets.delete(socket);
      });
    });
  }

  #answerOwn(req: IncomingMessage, res: ServerResponse, caBody: string): void {
    if (req.url === CA_PATH && (req.method === "GET" || req.method === "HEAD")) {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(caBody), "cache-control": "no-store" });
      return void res.end(req.method === "HEAD" ? undefined : caBody);
    }
    const https = /^https:\/\//i.test(req.url ?? "");
    sendRefusal(res, {
      status: 400,
      reason: "not-a-proxy-request",
      message: https ? "Use CONNECT for https:// destinations" : `This is a forward proxy: send CONNECT host:port or an absolute http:// URL (GET ${CA_PATH} serves its CA)`,
    });
  }

  listen(host: string, port: number): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#outer.once("error", reject);
      this.#outer.listen(port, host, () => {
        this.#outer.off("error", reject);
        resolve(this.#outer.address() as AddressInfo);
      });
    });
  }

  /** Stops listening and cuts every agent connection, tunnels included. */
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#outer.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    return closed;
  }
}
