/**
 * HTTP load for bench sections: servers on 127.0.0.1 in this process, autocannon in a child
 * process with fixed connections and duration, so load generation never shares the servers'
 * event loop.
 */
import { execFile } from "node:child_process";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";

const autocannonBin = createRequire(import.meta.url).resolve("autocannon/autocannon.js");

export interface LoadRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
}

export interface LoadResult {
  rps: number;
  non2xx: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  /**
   * CPU time this process (the servers') spent per request, in microseconds: on a shared machine
   * it moves far less with other people's load than requests per second do.
   */
  cpuUsPerRequest: number;
}

/** Requests per second autocannon reaches against `url`; connection errors fail the run. */
export function loadTest(url: string, seconds: number, request: LoadRequest = {}): Promise<LoadResult> {
  const args = [autocannonBin, "--json", "-c", String(request.connections ?? 16), "-d", String(seconds), "-m", request.method ?? "GET"];
  for (const [name, value] of Object.entries(request.headers ?? {})) args.push("-H", `${name}=${value}`);
  if (request.body !== undefined) args.push("-b", request.body);
  args.push(url);
  const cpu = process.cpuUsage();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const result = JSON.parse(stdout) as {
        requests: { average: number; total: number };
        latency: { p50: number; p99: number };
        non2xx: number;
        errors: number;
      };
      if (result.errors > 0) return reject(new Error(`autocannon saw ${result.errors} connection errors`));
      const used = process.cpuUsage(cpu);
      resolve({
        rps: result.requests.average,
        non2xx: result.non2xx,
        p50: result.latency.p50,
        p99: result.latency.p99,
        cpuUsPerRequest: (used.user + used.system) / Math.max(1, result.requests.total),
      });
    });
  });
}

export function listen(listener: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(listener);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

export const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
