import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startSilentEndpoint, startWebhookReceiver, LOOPBACK, type Running, type WebhookReceiver } from "../../../src/testing/index.js";
import { createRootCa, issueCertificate, type IssuedCertificate } from "../../../src/x509/issue.js";
import { createWebhookSink } from "../../../src/audit/sinks/webhook-sink.js";
import { sampleChain } from "./entries.js";

const SECRET = "audit-hook-secret-0123456789";
const DAY = 24 * 60 * 60 * 1000;
const fast = { baseMs: 5, maxMs: 20 };

let ca: IssuedCertificate;
let receiver: WebhookReceiver;
let silent: Running;

beforeAll(async () => {
  const now = new Date();
  ca = await createRootCa({ commonName: "Audit Receiver CA", keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now });
  const leaf = await issueCertificate({
    issuer: { certificatePem: ca.certificatePem, privateKeyPem: ca.privateKeyPem! },
    subjectAltNames: [{ type: "ip_address", value: LOOPBACK }],
    keyAlgorithm: "EC_prime256v1",
    ttlMs: DAY,
    now,
  });
  // The receiver checks x-strongroom-signature against SECRET on its own (node:crypto HMAC).
  receiver = await startWebhookReceiver(leaf.privateKeyPem!, leaf.certificatePem, SECRET);
  silent = await startSilentEndpoint();
});
afterAll(async () => {
  await receiver?.close();
  await silent?.close();
});

const chain = sampleChain(200);
/** Entry n (from 0) of one chain. */
const entry = (n: number) => chain[n];
const receivedIds = () => receiver.requests.flatMap((r) => (r.body as { entries: { id: string }[] }).entries.map((e) => e.id));

describe("the HTTPS webhook sink", () => {
  it("POSTs batches over TLS with a signature the receiver verifies", async () => {
    receiver.requests.length = 0;
    const sink = createWebhookSink({ url: receiver.url, secret: SECRET, ca: ca.certificatePem });
    for (let n = 0; n < 3; n++) sink.write([entry(n)]);
    expect(await sink.flush()).toBe(true);
    await sink.close();
    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(receiver.requests.every((r) => r.verified)).toBe(true);
    expect(receivedIds()).toEqual(["entry-0001", "entry-0002", "entry-0003"]);
  });

  it("retries after 500s with backoff and delivers once the receiver recovers", async () => {
    receiver.requests.length = 0;
    receiver.respondWith(500);
    const sink = createWebhookSink({ url: receiver.url, secret: SECRET, ca: ca.certificatePem, backoff: fast });
    try {
      sink.write([entry(1)]);
      await vi.waitFor(() => expect(receiver.requests.length).toBeGreaterThanOrEqual(3));
      sink.write([entry(2)]);
      expect(sink.lag()).toMatchObject({ pending: 2, delivered: 0, lastError: "The audit webhook answered HTTP 500" });
      receiver.respondWith(200);
      expect(await sink.flush()).toBe(true);
      expect(sink.lag()).toMatchObject({ pending: 0, delivered: 2, failures: 0 });
      // Every attempt carried the same head entry, signed; the recovered receiver got both in order.
      const ids = receivedIds();
      expect(ids.filter((id) => id === "entry-0002").length).toBeGreaterThanOrEqual(4);
      expect(ids.slice(-2)).toEqual(["entry-0002", "entry-0003"]);
      expect(receiver.requests.every((r) => r.verified)).toBe(true);
    } finally {
      receiver.respondWith(200);
      await sink.close();
    }
  });

  it("is not trusted by a receiver holding another secret", async () => {
    receiver.requests.length = 0;
    const sink = createWebhookSink({ url: receiver.url, secret: "some-other-secret-0123456789", ca: ca.certificatePem });
    sink.write([entry(1)]);
    await sink.flush();
    await sink.close();
    expect(receiver.requests.map((r) => r.verified)).toEqual([false]);
  });

  it("never makes a writer wait on a stuck receiver: it fills its buffer, then drops and reports", async () => {
    // Accepts the connection and never completes the TLS handshake.
    const sink = createWebhookSink({ url: `https://${LOOPBACK}:${silent.port}/hook`, secret: SECRET, capacity: 50, timeoutMs: 60_000 });
    try {
      // Each write resolves although nothing is ever delivered.
      for (let n = 0; n < 200; n++) await sink.write([entry(n)]);
      expect(await sink.flush(50)).toBe(false);
      expect(sink.lag()).toMatchObject({ pending: 50, capacity: 50, dropped: 150, delivered: 0 });
    } finally {
      await sink.close(0);
    }
    expect(sink.lag()).toMatchObject({ pending: 0, dropped: 200 });
  });

  it("refuses a plain-HTTP URL and a short secret", () => {
    expect(() => createWebhookSink({ url: "http://127.0.0.1/hook", secret: SECRET })).toThrow(/https/);
    expect(() => createWebhookSink({ url: receiver.url, secret: "short" })).toThrow(/16 characters/);
  });
});
