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

/** Requests per second autocannon reaches against `url`; connection errors fail the run. */
export function loadTest(url: string, seconds: number, request: LoadRequest = {}): Promise<{ rps: number; non2xx: number }> {
  const args = [autocannonBin, "--json", "-c", String(request.connections ?? 16), "-d", String(seconds), "-m", request.method ?? "GET"];
  for (const [name, value] of Object.entries(request.headers ?? {})) args.push("-H", `${name}=${value}`);
  if (request.body !== undefined) args.push("-b", request.body);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const result = JSON.parse(stdout) as { requests: { average: number }; non2xx: number; errors: number };
      if (result.errors > 0) return reject(new Error(`autocannon saw ${result.errors} connection errors`));
      resolve({ rps: result.requests.average, non2xx: result.non2xx });
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
