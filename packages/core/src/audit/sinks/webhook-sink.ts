/** The HTTPS webhook sink: batches of entries POSTed as JSON, signed with HMAC-SHA256, retried with backoff. */
import { randomUUID } from "node:crypto";
import { request } from "node:https";
import { rootCertificates } from "node:tls";
import type { AuditEntry } from "../schemas.js";
import { createSink, type BufferedSink, type SinkOptions } from "./stream.js";
import { SIGNATURE_HEADER, signBody } from "./signature.js";

export interface WebhookSinkOptions<E> extends Partial<Omit<SinkOptions<E>, "serialize">> {
  /** An `https://` URL. */
  url: string;
  /** The HMAC key the receiver checks `x-strongroom-signature` with (at least 16 characters). */
  secret: string;
  /** Extra PEM CA certificate(s) trusted on top of the system roots (a private CA, tests). */
  ca?: string;
  /** Limit per delivery attempt, ms (default 10,000). */
  timeoutMs?: number;
  /** Entries per POST at most (default 100). */
  batchSize?: number;
  serialize?: (entry: E) => string;
}

/**
 * A delivery is `POST <url>` with `{"entries":[…]}`, `x-strongroom-signature: sha256=<hex>` over
 * the body, and `x-strongroom-delivery: <uuid>`, the same on every retry of the batch so a
 * receiver can drop a duplicate (a batch whose answer was lost is sent again). Any answer but 2xx,
 * a timeout or a connection error is a failure: the batch is retried with backoff while newer
 * entries wait behind it in the bounded buffer. Redirects are not followed.
 */
export function createWebhookSink<E = AuditEntry>(options: WebhookSinkOptions<E>): BufferedSink<E> {
  const url = new URL(options.url);
  if (url.protocol !== "https:") throw new Error("The audit webhook URL must be https://");
  if (options.secret.length < 16) throw new Error("The audit webhook secret must be at least 16 characters");
  const timeoutMs = options.timeoutMs ?? 10_000;
  const ca = options.ca ? [...rootCertificates, options.ca] : undefined;
  const inFlight = new Set<AbortController>();
  // The id of the batch at the head of the sink, kept while it is being retried.
  let current: { first: string; id: string } | undefined;

  const post = (body: string, delivery: string) =>
    new Promise<void>((resolve, reject) => {
      const abort = new AbortController();
      inFlight.add(abort);
      const timer = setTimeout(() => abort.abort(new Error(`The audit webhook did not answer within ${timeoutMs} ms`)), timeoutMs);
      const done = (error?: Error) => {
        clearTimeout(timer);
        inFlight.delete(abort);
        if (error) reject(error);
        else resolve();
      };
      const req = request(
        url,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            "user-agent": "strongroom-audit",
            [SIGNATURE_HEADER]: signBody(options.secret, body),
            "x-strongroom-delivery": delivery,
          },
          agent: false,
          signal: abort.signal,
          ...(ca ? { ca } : {}),
        },
        (res) => {
          res.resume();
          const status = res.statusCode ?? 0;
          res.once("end", () => done(status >= 200 && status < 300 ? undefined : new Error(`The audit webhook answered HTTP ${status}`)));
          res.once("error", (error) => done(error));
        },
      );
      req.once("error", (error) => done(abort.signal.aborted && abort.signal.reason instanceof Error ? abort.signal.reason : error));
      req.end(body);
    });

  return createSink<E>(
    {
      async deliver(lines) {
        // A retry of the same batch keeps its delivery id; the first line identifies the batch.
        if (current?.first !== lines[0]) current = { first: lines[0], id: randomUUID() };
        await post(`{"entries":[${lines.join(",")}]}`, current.id);
      },
      async close() {
        for (const abort of inFlight) abort.abort(new Error("The audit sink was closed"));
      },
    },
    { name: `webhook:${url.origin}`, batchSize: 100, ...options },
  );
}
