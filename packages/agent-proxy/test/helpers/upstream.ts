import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { createRootCa, issueCertificate } from "@strongroom/core/x509";

/** Upstream servers on 127.0.0.1 that record what reached them and echo it back as JSON. */

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TestUpstream {
  port: number;
  /** `https://127.0.0.1:port` (or http://). */
  origin: string;
  received: Received[];
  /** TCP connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

export interface UpstreamCa {
  certificatePem: string;
  key: string;
  cert: string;
}

/** A CA and a leaf for 127.0.0.1, ::1 and localhost, which every HTTPS upstream of a suite shares. */
export async function upstreamCertificates(): Promise<UpstreamCa> {
  const now = new Date(Date.now() - 60_000);
  const ca = await createRootCa({ commonName: "Upstream Test CA", keyAlgorithm: "EC_prime256v1", ttlMs: 86_400_000, now });
  const leaf = await issueCertificate({
    issuer: { certificatePem: ca.certificatePem, privateKeyPem: ca.privateKeyPem! },
    keyAlgorithm: "EC_prime256v1",
    subject: { commonName: "127.0.0.1" },
    subjectAltNames: [
      { type: "ip_address", value: "127.0.0.1" },
      { type: "ip_address", value: "::1" },
      { type: "dns_name", value: "localhost" },
    ],
    extendedKeyUsages: ["server_auth"],
    keyUsages: ["digital_signature"],
    ttlMs: 86_000_000,
    now,
  });
  return { certificatePem: ca.certificatePem, key: leaf.privateKeyPem!, cert: leaf.certificatePem };
}

function echo(received: Received[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const entry = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(entry);
      const body = JSON.stringify({ ok: true, path: entry.url });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-upstream": "yes" });
      res.end(body);
    });
  };
}

async function start(server: Server, scheme: "http" | "https", received: Received[], host = "127.0.0.1"): Promise<TestUpstream> {
  const sockets = new Set<Socket>();
  const upstream: TestUpstream = {
    port: 0,
    origin: "",
    received,
    connections: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on("connection", (socket: Socket) => {
    upstream.connections += 1;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  upstream.port = (server.address() as AddressInfo).port;
  upstream.origin = `${scheme}://${host.includes(":") ? `[${host}]` : host}:${upstream.port}`;
  return upstream;
}

/** On 127.0.0.1, or on `host` (a loopback address such as ::1). */
export function startHttpsUpstream(certificates: UpstreamCa, host?: string): Promise<TestUpstream> {
  const received: Received[] = [];
  return start(createHttpsServer({ key: certificates.key, cert: certificates.cert }, echo(received)), "https", received, host);
}

export function startHttpUpstream(): Promise<TestUpstream> {
  const received: Received[] = [];
  return start(createHttpServer(echo(received)), "http", received);
}
