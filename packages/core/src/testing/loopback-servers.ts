/**
 * Servers the certificate-manager tests run on 127.0.0.1 only: TLS endpoints to discover, a
 * silent TCP server, a closed port, an SMTP receiver and an HTTPS webhook receiver. Shared by
 * core's tests and the HTTP adapter's.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, type Server, type Socket, createServer as createTcpServer } from "node:net";
import { createServer as createTlsServer } from "node:tls";

export const LOOPBACK = "127.0.0.1";

export interface Running {
  port: number;
  close(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, LOOPBACK, () => resolve((server.address() as AddressInfo).port));
  });
}

/** Closes the server and hangs up on every connection it still holds. */
function closer(server: Server, sockets: Set<Socket>): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

function tracked(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return sockets;
}

/** A TLS endpoint presenting `cert` (leaf first, then any chain). */
export async function startTlsEndpoint(key: string, cert: string): Promise<Running> {
  const server = createTlsServer({ key, cert }, (socket) => socket.end());
  server.on("tlsClientError", () => undefined);
  const sockets = tracked(server);
  return { port: await listen(server), close: closer(server, sockets) };
}

/** Accepts TCP and never answers: a handshake that never completes. */
export async function startSilentEndpoint(): Promise<Running> {
  const server = createTcpServer((socket) => {
    socket.on("error", () => undefined);
    socket.resume();
  });
  const sockets = tracked(server);
  return { port: await listen(server), close: closer(server, sockets) };
}

/** A port that was just free and is closed again: nothing listens there. */
export async function closedPort(): Promise<number> {
  const probe = createTcpServer();
  const port = await listen(probe);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface ReceivedMail {
  from: string;
  to: string[];
  /** Decoded from its MIME encoded-words. */
  subject: string;
  /** The body, decoded from quoted-printable when so encoded. */
  text: string;
  raw: string;
}

/** RFC 2047 encoded-words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`), joined as the RFC says when adjacent. */
function decodeWords(header: string): string {
  return header
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === "B"
        ? Buffer.from(text, "base64").toString("utf8")
        : decodeQuotedPrintable(text.replace(/_/g, " ")),
    );
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

function parseMail(raw: string): { subject: string; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? "" : raw.slice(split).replace(/^\r?\n\r?\n/, "");
  const header = (name: string) => new RegExp(`^${name}: (.*(?:\\r?\\n[ \\t].*)*)`, "im").exec(head)?.[1]?.replace(/\r?\n[ \t]/g, " ") ?? "";
  const quoted = /quoted-printable/i.test(header("Content-Transfer-Encoding"));
  return { subject: decodeWords(header("Subject")), text: quoted ? decodeQuotedPrintable(body) : body };
}

export interface SmtpReceiver extends Running {
  url: string;
  messages: ReceivedMail[];
}

/**
 * A plain SMTP server (no TLS, no auth) that keeps every message it receives. `smtp-server` is
 * loaded here, not with the module, so suites that never receive mail do not need it installed.
 */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const { SMTPServer } = await import("smtp-server");
  const messages: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          ...parseMail(raw),
          raw,
        });
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    smtp.on("error", reject);
    smtp.listen(0, LOOPBACK, () => resolve((smtp.server.address() as AddressInfo).port));
  });
  return {
    port,
    url: `smtp://${LOOPBACK}:${port}`,
    messages,
    close: () => new Promise((resolve) => smtp.close(() => resolve())),
  };
}

export interface ReceivedHook {
  path: string;
  signature: string | undefined;
  /** Whether the signature is the HMAC-SHA256 of the body under the receiver's secret. */
  verified: boolean;
  body: unknown;
}

export interface WebhookReceiver extends Running {
  url: string;
  requests: ReceivedHook[];
  /** The status the next requests are answered with (default 200). */
  respondWith(status: number): void;
}

/** An HTTPS receiver with the given key and certificate that checks `x-strongroom-signature` against `secret`. */
export async function startWebhookReceiver(key: string, cert: string, secret: string): Promise<WebhookReceiver> {
  const requests: ReceivedHook[] = [];
  let status = 200;
  const server = createHttpsServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const signature = req.headers["x-strongroom-signature"] as string | undefined;
      const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(body).digest("hex")}`);
      const verified = signature !== undefined && signature.length === expected.length && timingSafeEqual(Buffer.from(signature), expected);
      requests.push({ path: req.url ?? "", signature, verified, body: JSON.parse(body.toString("utf8")) });
      res.writeHead(status, { "content-type": "text/plain" }).end("ok");
    });
  });
  const sockets = tracked(server);
  const port = await listen(server);
  return {
    port,
    url: `https://${LOOPBACK}:${port}/hooks/certificates`,
    requests,
    respondWith: (next) => {
      status = next;
    },
    close: closer(server, sockets),
  };
}
