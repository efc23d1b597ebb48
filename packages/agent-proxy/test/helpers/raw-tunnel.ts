import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";

/**
 * An agent as an attacker plays it: raw bytes through the proxy, no client library smoothing
 * anything over. `openTunnel` sends CONNECT (and optionally completes TLS with the proxy's leaf);
 * `collect` reads until the proxy closes or enough has arrived; `parseResponses` splits what came
 * back into HTTP/1.1 responses.
 */
export class TunnelRefused extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(`CONNECT answered ${status}`);
  }
}

export interface TunnelOptions {
  proxyUrl: string;
  token: string | null;
  /** host:port */
  authority: string;
  /** The proxy's CA: complete TLS inside the tunnel (otherwise it stays plain). */
  ca?: string;
  /** Skip TLS even with a CA: stop right after the 200. */
  noTls?: boolean;
}

export async function openTunnel(options: TunnelOptions): Promise<Duplex> {
  const { hostname, port } = new URL(options.proxyUrl);
  const socket: Socket = connect(Number(port), hostname);
  socket.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const auth = options.token === null ? "" : `Proxy-Authorization: Bearer ${options.token}\r\n`;
  socket.write(`CONNECT ${options.authority} HTTP/1.1\r\nHost: ${options.authority}\r\n${auth}\r\n`);
  const head = await new Promise<string>((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      socket.pause();
      const rest = Buffer.from(text.slice(end + 4), "latin1");
      if (rest.length) socket.unshift(rest);
      resolve(text.slice(0, end + 4));
    };
    socket.on("data", onData);
    socket.once("close", () => reject(new TunnelRefused(Number(text.split(" ")[1]), text)));
  });
  const status = Number(head.split(" ")[1]);
  if (status !== 200) {
    const rest = await collect(socket);
    throw new TunnelRefused(status, head + rest.toString("latin1"));
  }
  if (!options.ca || options.noTls) return socket;
  const host = options.authority.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  const secure = tlsConnect({ socket, ca: options.ca, ...(/^[\d.:]+$/.test(host) ? {} : { servername: host }), host });
  secure.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    secure.once("secureConnect", resolve);
    secure.once("error", reject);
    secure.once("close", () => reject(new Error("closed during the TLS handshake")));
  });
  return secure;
}

/** Everything the socket delivers until it closes, or until `enough` says so. */
export function collect(socket: Duplex, enough: (bytes: Buffer) => boolean = () => false): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const finish = () => {
      socket.off("data", onData);
      resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      if (enough(Buffer.concat(chunks))) finish();
    };
    socket.on("data", onData);
    socket.once("close", finish);
    socket.once("end", finish);
    socket.resume();
  });
}

/** True once the socket has closed (or was already). */
export function closed(socket: Duplex): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    socket.once("close", () => resolve());
    socket.resume();
  });
}

export interface RawResponse {
  status: number;
  statusText: string;
  headers: Record<string, string[]>;
  body: Buffer;
}

/** Splits a byte stream into responses; `methods` in request order (a HEAD response has no body). */
export function parseResponses(bytes: Buffer, methods: readonly string[] = []): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf("\r\n\r\n", at, "latin1");
    if (end < 0) break;
    const [statusLine = "", ...lines] = bytes.subarray(at, end).toString("latin1").split("\r\n");
    const [, code = "0", ...text] = statusLine.split(" ");
    const headers: Record<string, string[]> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      (headers[line.slice(0, colon).trim().toLowerCase()] ??= []).push(line.slice(colon + 1).trim());
    }
    const status = Number(code);
    at = end + 4;
    let body: Buffer = Buffer.alloc(0);
    const method = methods[responses.length] ?? "GET";
    if (status >= 200 && status !== 204 && status !== 304 && method !== "HEAD") {
      if (headers["transfer-encoding"]?.some((v) => /chunked/i.test(v))) {
        const parts: Buffer[] = [];
        for (;;) {
          const lineEnd = bytes.indexOf("\r\n", at, "latin1");
          if (lineEnd < 0) break;
          const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
          at = lineEnd + 2;
          if (!size) {
            at += 2;
            break;
          }
          parts.push(bytes.subarray(at, at + size));
          at += size + 2;
        }
        body = Buffer.concat(parts);
      } else if (headers["content-length"]) {
        const length = Number(headers["content-length"][0]);
        body = bytes.subarray(at, at + length);
        at += length;
      } else {
        body = bytes.subarray(at);
        at = bytes.length;
      }
    }
    responses.push({ status, statusText: text.join(" "), headers, body });
  }
  return responses;
}
