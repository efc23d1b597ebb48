import { readFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { rootCertificates } from "node:tls";

/** Where and as whom to call: a server URL, an access token, and the CA file of a private CA. */
export interface ServerTarget {
  readonly server: string;
  readonly token?: string;
  readonly caFile?: string;
}

export interface CallOptions {
  readonly query?: Record<string, string | boolean | undefined>;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

export interface JsonAnswer {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly body: any;
}

/**
 * The trust roots for a `--ca-file`: the system's, the file's, and `NODE_EXTRA_CA_CERTS`'s
 * (which Node adds by itself only when no `ca` is given). Without a CA file, Node's defaults.
 */
function trustFor(caFile: string | undefined): string[] | undefined {
  if (!caFile) return undefined;
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  return [...rootCertificates, readFileSync(caFile, "utf8"), ...(extra ? [readFileSync(extra, "utf8")] : [])];
}

function urlOf(target: ServerTarget, path: string, query: CallOptions["query"]): URL {
  const url = new URL(path, target.server.endsWith("/") ? target.server : `${target.server}/`);
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
  return url;
}

/** Sends one request and hands back the response unread (event streams read it as it comes). */
export function open(target: ServerTarget, method: string, path: string, options: CallOptions = {}): Promise<IncomingMessage> {
  const url = urlOf(target, path, options.query);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    accept: "application/json",
    ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
    ...(payload !== undefined ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) } : {}),
    ...options.headers,
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method, headers, ca: trustFor(target.caFile), signal: options.signal }, resolve);
    req.on("error", (error) => reject(connectionError(target.server, error)));
    req.end(payload);
  });
}

/** Sends a JSON request and reads the JSON answer (an empty body reads as undefined). */
export async function call(target: ServerTarget, method: string, path: string, options: CallOptions = {}): Promise<JsonAnswer> {
  const res = await open(target, method, path, options);
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = { message: text.slice(0, 200) };
    }
  }
  return { status: res.statusCode ?? 0, headers: res.headers, body };
}

function connectionError(server: string, error: Error): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (error.name === "AbortError") return error;
  if (code === "ECONNREFUSED") return new Error(`cannot reach the server at ${server} (connection refused)`);
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
    return new Error(`the server's TLS certificate is not trusted (${code}); pass --ca-file with the CA that signed it`);
  }
  return new Error(`cannot reach the server at ${server}: ${error.message}`);
}
