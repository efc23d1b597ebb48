import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerClientError } from "../client-error.js";
import { createHandler, type HandlerOptions, type StrongroomHandler, type StrongroomTarget } from "../handler.js";

export interface ListenOptions extends HandlerOptions {
  port?: number;
  host?: string;
  /** How long shutdown waits for in-flight requests before cutting them off. Default 10 000. */
  shutdownTimeoutMs?: number;
}

export interface RunningServer {
  readonly server: Server;
  readonly handler: StrongroomHandler;
  /** `http://host:port` as bound (the real port when 0 was asked for). */
  readonly url: string;
  /**
   * Graceful shutdown: stops accepting connections, ends event streams, lets in-flight requests
   * finish (bounded by `shutdownTimeoutMs`), then closes the Strongroom instance. Idempotent.
   */
  close(): Promise<void>;
}

/** Serves `strongroom` over node:http and owns it from then on: `close()` closes it too. */
export async function listen(strongroom: StrongroomTarget & { close(): Promise<void> }, options: ListenOptions = {}): Promise<RunningServer> {
  const handler = createHandler(strongroom, options);
  const server = createServer({ requestTimeout: 60_000, headersTimeout: 30_000 }, handler);
  server.on("clientError", answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  const shutdown = async () => {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    handler.shutdown();
    server.closeIdleConnections();
    await withTimeout(handler.whenIdle(), options.shutdownTimeoutMs ?? 10_000);
    server.closeAllConnections();
    await stopped;
    await strongroom.close();
  };

  return {
    server,
    handler,
    url: `http://${host}:${address.port}`,
    close: () => (closing ??= shutdown()),
  };
}

async function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
