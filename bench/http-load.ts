/**
 * Load over loopback HTTP for bench sections: autocannon in a child process (so load generation
 * never shares the measured process's event loop or CPU figures), and a node:http listener.
 */
import { execFile } from "node:child_process";
import { createServer, type RequestListener, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

const autocannonBin = createRequire(import.meta.url).resolve("autocannon/autocannon.js");

export interface LoadResult {
  rps: number;
  /** Requests completed in the run. */
  total: number;
  non2xx: number;
}

/** `connections` keep-alive connections against `url` for `seconds`. */
export function loadTest(url: string, seconds: number, headers: Record<string, string> = {}, connections = 16): Promise<LoadResult> {
  const args = [autocannonBin, "--json", "-c", String(connections), "-d", String(seconds), ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`]), url];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const result = JSON.parse(stdout) as { requests: { average: number; total: number }; non2xx: number; errors: number };
      if (result.errors > 0) return reject(new Error(`autocannon saw ${result.errors} connection errors`));
      resolve({ rps: result.requests.average, total: result.requests.total, non2xx: result.non2xx });
    });
  });
}

export function listen(listener: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(listener);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

export const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
