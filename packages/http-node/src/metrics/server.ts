import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { StrongroomMetrics } from "./registry.js";

export const METRICS_PATH = "/metrics";

export interface MetricsServer {
  /** `http://host:port/metrics` as bound. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * `GET /metrics` on a listener of its own (METRICS_PORT, bound to METRICS_HOST, default
 * 127.0.0.1), so the API's port never exposes it. Anything else answers 404.
 */
export async function serveMetrics(metrics: StrongroomMetrics, options: { port: number; host?: string }): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== METRICS_PATH || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: metrics are at GET /metrics\n");
      return;
    }
    metrics.text().then(
      (text) => res.writeHead(200, { "content-type": metrics.contentType, "cache-control": "no-store" }).end(req.method === "HEAD" ? undefined : text),
      (thrown: unknown) => res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`# metrics failed: ${thrown instanceof Error ? thrown.message : String(thrown)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}${METRICS_PATH}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
