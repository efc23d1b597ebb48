import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { gzipSync } from "node:zlib";
import type { UpstreamCa } from "./upstream.js";

/**
 * An upstream on 127.0.0.1 as attacks need it: it serves many virtual hosts on one address,
 * records every request it parsed (with the connection it came on) and every byte each connection
 * carried, and has routes that misbehave on purpose:
 *
 * - `/echo`: hands the whole request back, in its headers, its status text and its body, raw and
 *   wrapped (JSON, base64, base64url, percent-encoding); `?mode=drip` sends the body a byte per
 *   write, `?mode=gzip` compresses it whatever the request accepted;
 * - `/early`: answers before reading the request body;
 * - `/hang`: answers only when `release()` is called;
 * - anything else: reads the body and answers a small JSON.
 */
export interface Seen {
  connection: number;
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  /** Grows as the body arrives. */
  body: string;
  complete: boolean;
  aborted: boolean;
}

export interface HostileUpstream {
  port: number;
  origin: string;
  seen: Seen[];
  /** Every byte each connection delivered, by connection number (latin1). */
  raw: Map<number, string>;
  /** Requests of `/hang` waiting. */
  readonly hanging: number;
  release(): void;
  close(): Promise<void>;
}

/** What `/echo` reflects: the request as the upstream parsed it. */
function reflection(req: IncomingMessage, body: string): string {
  const head = [`${req.method} ${req.url} HTTP/1.1`, ...Object.entries(req.headers).map(([name, value]) => `${name}: ${[value].flat().join(", ")}`)].join("\r\n");
  return `${head}\r\n\r\n${body}`;
}

function echo(req: IncomingMessage, res: ServerResponse, body: string): void {
  const whole = reflection(req, body);
  const mode = new URL(req.url ?? "/", "http://x").searchParams.get("mode");
  const payload = Buffer.from(
    JSON.stringify({
      headers: req.headers,
      url: req.url,
      body,
      base64: Buffer.from(whole).toString("base64"),
      base64url: Buffer.from(whole).toString("base64url"),
      percent: encodeURIComponent(whole),
      raw: whole,
    }),
  );
  const auth = String(req.headers.authorization ?? "");
  const headers: Record<string, string | string[]> = {
    "content-type": "application/json",
    "x-echo-authorization": auth,
    "x-echo-token": String(req.headers["x-token"] ?? ""),
    "x-echo-base64": Buffer.from(whole).toString("base64"),
    "set-cookie": [`echo=${encodeURIComponent(whole)}`, `auth=${Buffer.from(auth).toString("base64url")}`],
  };
  res.statusMessage = `Echo ${auth}`;
  if (mode === "gzip") {
    const zipped = gzipSync(payload);
    res.writeHead(200, { ...headers, "content-encoding": "gzip", "content-length": zipped.length });
    return void res.end(zipped);
  }
  res.writeHead(200, { ...headers, "content-length": payload.length });
  if (mode !== "drip") return void res.end(payload);
  let at = 0;
  const next = () => {
    if (at >= payload.length) return void res.end();
    res.write(payload.subarray(at, (at += 1 + (at % 3))), () => setImmediate(next));
  };
  next();
}

export async function startHostileUpstream(certificates: UpstreamCa | null): Promise<HostileUpstream> {
  const seen: Seen[] = [];
  const raw = new Map<number, string>();
  const waiting: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const connectionOf = new WeakMap<object, number>();
  let connections = 0;

  const http: Server = createHttpServer((req, res) => {
    const entry: Seen = { connection: connectionOf.get(req.socket) ?? -1, method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: "", complete: false, aborted: false };
    seen.push(entry);
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/early") {
      res.writeHead(200, { "content-type": "text/plain", "content-length": 5 });
      res.end("early");
    }
    if (path === "/hang") waiting.push(res);
    req.on("data", (chunk: Buffer) => (entry.body += chunk.toString("latin1")));
    req.on("close", () => {
      if (!req.complete) entry.aborted = true;
    });
    req.on("end", () => {
      entry.complete = true;
      if (path === "/early" || path === "/hang") return;
      if (path === "/echo") return echo(req, res, Buffer.from(entry.body, "latin1").toString("utf8"));
      const answer = JSON.stringify({ ok: true, path: req.url });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  // Node's keep-alive default (5 s) would close pooled connections under a slow test.
  http.keepAliveTimeout = 60_000;

  const adopt = (socket: Socket) => {
    const id = ++connections;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    connectionOf.set(socket, id);
    raw.set(id, "");
    http.emit("connection", socket);
    // Added after the HTTP server took the socket, so that it observes without consuming.
    socket.on("data", (chunk: Buffer) => raw.set(id, raw.get(id)! + chunk.toString("latin1")));
  };
  const listener = certificates ? createTlsServer({ key: certificates.key, cert: certificates.cert }, adopt) : createNetServer(adopt);
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as AddressInfo).port;
  return {
    port,
    origin: `${certificates ? "https" : "http"}://127.0.0.1:${port}`,
    seen,
    raw,
    get hanging() {
      return waiting.filter((res) => !res.writableEnded && !res.destroyed).length;
    },
    release() {
      for (const res of waiting.splice(0)) {
        if (res.writableEnded || res.destroyed) continue;
        res.writeHead(200, { "content-type": "text/plain", "content-length": 8 });
        res.end("released");
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
