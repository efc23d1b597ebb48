import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { answerClientError } from "../client-error.js";
import { createHandler, type HandlerOptions, type StrongroomHandler, type StrongroomTarget } from "../handler.js";

export interface ListenOptions extends HandlerOptions {
  port?: number;
  host?: string;
  /** Longest a drain lasts before whatever is still running is cut off. Default 10 000. */
  drainTimeoutMs?: number;
  /** The former name of `drainTimeoutMs`. */
  shutdownTimeoutMs?: number;
  /**
   * How long a drain waits, once nothing is in flight, for a connection or request that might
   * still come (clients that sent before they learned of the drain). Default 500.
   */
  drainQuietMs?: number;
  /** Serve HTTPS with this certificate (chain) and key, PEM; plain HTTP without. */
  tls?: TlsMaterial;
}

export interface TlsMaterial {
  /** The certificate, then any intermediates, PEM. */
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

export interface RunningServer {
  readonly server: Server | HttpsServer;
  readonly handler: StrongroomHandler;
  /** `http://host:port` (`https://` with TLS) as bound (the real port when 0 was asked for). */
  readonly url: string;
  /**
   * Serves new connections with another certificate and key (renewal without a restart); open
   * connections keep the one they began with. Throws — keeping the current one — when they do not
   * load or do not match, and when the server does not serve TLS.
   */
  setCertificate(material: TlsMaterial): void;
  /**
   * Graceful shutdown, a drain: readiness turns 503 and event streams end at once; the server
   * keeps accepting and answering (with `Connection: close`) until nothing is in flight and no
   * connection or request has arrived for the quiet period, bounded by the drain timeout; then it
   * closes the listener and the Strongroom instance. Idempotent.
   */
  close(): Promise<void>;
}

/** How often a drain looks whether it is done. */
const DRAIN_POLL_MS = 20;

/** Serves `strongroom` over node:http and owns it from then on: `close()` closes it too. */
export async function listen(strongroom: StrongroomTarget & { close(): Promise<void> }, options: ListenOptions = {}): Promise<RunningServer> {
  const handler = createHandler(strongroom, options);
  const timeouts = { requestTimeout: 60_000, headersTimeout: 30_000 };
  const server = options.tls ? createHttpsServer({ ...timeouts, cert: options.tls.cert, key: options.tls.key }, handler) : createServer(timeouts, handler);
  server.on("clientError", answerClientError);
  let lastArrival = performance.now();
  const arrived = () => {
    lastArrival = performance.now();
  };
  server.on("connection", arrived);
  server.on("request", arrived);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const drainTimeoutMs = options.drainTimeoutMs ?? options.shutdownTimeoutMs ?? 10_000;
  const quietMs = options.drainQuietMs ?? 500;

  const settled = () => handler.inFlight === 0 && performance.now() - lastArrival >= quietMs;

  /** Resolves once the server has settled (see `settled`) or the deadline has passed. */
  const drained = async (deadline: number) => {
    while (performance.now() < deadline) {
      if (settled()) {
        // Connections that waited while the loop was busy are accepted in its poll phase, after
        // the timers: one more turn lets them arrive (and count) before the listener closes.
        await new Promise((resolve) => setImmediate(resolve));
        if (settled()) return;
      }
      await sleep(Math.max(1, Math.min(DRAIN_POLL_MS, deadline - performance.now())));
    }
  };

  let closing: Promise<void> | undefined;
  const shutdown = async () => {
    handler.shutdown();
    await drained(performance.now() + drainTimeoutMs);
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    // Past the bound, whatever still runs is cut off; within it, only idle connections remain.
    server.closeAllConnections();
    await stopped;
    await strongroom.close();
  };

  return {
    server,
    handler,
    url: `${options.tls ? "https" : "http"}://${host}:${address.port}`,
    setCertificate(material) {
      if (!("setSecureContext" in server)) throw new Error("this server does not serve TLS");
      server.setSecureContext({ cert: material.cert, key: material.key });
    },
    close: () => (closing ??= shutdown()),
  };
}
