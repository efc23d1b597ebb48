import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHandler, type HandlerOptions, type StrongroomHandler } from "@strongroom/http-node";
import { createFakeStrongroom, testRoutes, type FakeStrongroom } from "./fake-strongroom.js";

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface TestServer {
  url: string;
  port: number;
  fake: FakeStrongroom;
  handler: StrongroomHandler;
  /** Every log line, parsed. */
  logs: Record<string, any>[];
  /** Every log line as written. */
  rawLogs: string[];
  send(method: string, path: string, options?: SendOptions): Promise<Reply>;
  close(): Promise<void>;
}

export interface SendOptions {
  headers?: Record<string, string | string[]>;
  /** Sent as is. */
  body?: string | Buffer;
  /** Serialized and sent with `content-type: application/json`. */
  json?: unknown;
  token?: string;
  /** Loopback source address to send from (any of 127.0.0.0/8), to act as another client IP. */
  localAddress?: string;
}

/** The handler on a plain node:http server on loopback, with the fake strongroom and test routes. */
export async function startTestServer(options: HandlerOptions = {}): Promise<TestServer> {
  const fake = createFakeStrongroom();
  const rawLogs: string[] = [];
  const handler = createHandler(fake.strongroom, { routes: testRoutes, logger: (line) => rawLogs.push(line), ...options });
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    fake,
    handler,
    rawLogs,
    get logs() {
      return rawLogs.map((line) => JSON.parse(line));
    },
    send: (method, path, sendOptions) => send(port, method, path, sendOptions),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One request with full control over method, raw path, headers and body. */
export function send(port: number, method: string, path: string, options: SendOptions = {}): Promise<Reply> {
  const headers: Record<string, string | string[]> = { ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method, path, headers, agent: false, localAddress: options.localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Resolves once `check` holds, polling on the event loop (no fixed sleeps in assertions). */
export async function eventually(check: () => boolean, what: string, limitMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
