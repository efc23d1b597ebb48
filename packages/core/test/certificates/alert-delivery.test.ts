import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LOOPBACK, type TestWorld, type WebhookReceiver, createTestWorld, startWebhookReceiver } from "@strongroom/core/testing";
import type { MailMessage, StrongroomConfig, WebhookRequest } from "../../src/index.js";
import { MAX_DELIVERY_ATTEMPTS } from "../../src/cert-manager/alerts/evaluation.js";
import { DEFAULT_LEASE_MS } from "../../src/jobs/lease.js";
import { type IssuedCertificate, createRootCa, issueCertificate } from "../../src/entries/x509.js";

const DAY = 86_400_000;
const SECRET = "a-signing-secret-of-some-length";

let receiverCa: IssuedCertificate;
let receiver: WebhookReceiver;
beforeAll(async () => {
  const now = new Date();
  receiverCa = await createRootCa({ commonName: "Receiver CA", keyAlgorithm: "EC_prime256v1", ttlMs: 30 * DAY, now });
  const leaf = await issueCertificate({
    issuer: { certificatePem: receiverCa.certificatePem, privateKeyPem: receiverCa.privateKeyPem! },
    subjectAltNames: [{ type: "ip_address", value: LOOPBACK }],
    extendedKeyUsages: ["server_auth"],
    keyAlgorithm: "EC_prime256v1",
    ttlMs: 10 * DAY,
    now,
  });
  receiver = await startWebhookReceiver(leaf.privateKeyPem!, leaf.certificatePem, SECRET);
});
afterAll(() => receiver.close());

let w: TestWorld;
afterEach(() => w.close());

/** A self-signed certificate expiring in 3 days and an alert 7 days ahead with one webhook and one e-mail channel. */
async function setUp(config: Partial<StrongroomConfig>) {
  w = await createTestWorld({ projectType: "cert-manager", config });
  const { certificateProfile } = await w.sr.certificateProfiles.create(w.admin, {
    projectId: w.projectId,
    slug: "short",
    issuerType: "self-signed",
    defaults: { ttlDays: 3, commonName: "soon.test", keyAlgorithm: "EC_prime256v1" },
  });
  await w.sr.certificates.issue(w.admin, { profileId: certificateProfile.id });
  const { alert } = await w.sr.alerts.create(w.admin, {
    projectId: w.projectId,
    name: "expiring",
    eventType: "expiration",
    alertBefore: "7d",
    channels: [
      { channelType: "webhook", config: { url: receiver.url, signingSecret: SECRET } },
      { channelType: "email", config: { recipients: ["ops@acme.test"] } },
    ],
  });
  return alert;
}

describe("alert delivery", () => {
  it("records failures and retries them on later runs, up to a bound", async () => {
    const alert = await setUp({ allowPrivateTargets: true, webhookCa: receiverCa.certificatePem });
    receiver.respondWith(500);
    const first = await w.sr.alerts.evaluate(w.admin, { alertId: alert.id });
    expect(first.evaluation.notifications).toEqual([
      expect.objectContaining({ channelType: "webhook", status: "failed", error: "The webhook answered HTTP 500" }),
      expect.objectContaining({ channelType: "email", status: "failed", error: expect.stringContaining("not configured") }),
    ]);
    receiver.respondWith(200);
    const before = receiver.requests.length;
    const second = await w.sr.alerts.evaluate(w.admin, { alertId: alert.id });
    expect(second.evaluation.notifications.map((n) => `${n.channelType}:${n.status}`)).toEqual(["webhook:sent", "email:failed"]);
    expect(receiver.requests.length).toBe(before + 1);
    expect(receiver.requests.at(-1)!.verified).toBe(true);
    for (let run = 2; run < MAX_DELIVERY_ATTEMPTS; run++) await w.sr.alerts.evaluate(w.admin, { alertId: alert.id });
    // The webhook was sent; the e-mail has used up its attempts.
    expect((await w.sr.alerts.evaluate(w.admin, { alertId: alert.id })).evaluation.notifications).toEqual([]);
    const rows = await w.sr.context.storage.tables.certificateAlertNotifications.find({ alertId: alert.id });
    expect(rows.map((r) => [r.status, r.attempts]).sort()).toEqual([["failed", MAX_DELIVERY_ATTEMPTS], ["sent", 2]]);
  });

  it("sends again a notification a dead node left `sending`, once its lease has lapsed", async () => {
    const alert = await setUp({ allowPrivateTargets: true, webhookCa: receiverCa.certificatePem });
    receiver.respondWith(200);
    await w.sr.alerts.evaluate(w.admin, { alertId: alert.id });
    const sent = receiver.requests.length;
    const notifications = w.sr.context.storage.tables.certificateAlertNotifications;
    const [webhook] = (await notifications.find({ alertId: alert.id, status: "sent" }));
    // As a node that claimed it and died before recording the outcome leaves it.
    await notifications.update({ id: webhook.id }, { status: "sending", sentAt: null, updatedAt: w.clock.now().toISOString() });
    // Its node may still be sending: nothing yet.
    expect((await w.sr.alerts.evaluate(w.admin, { alertId: alert.id })).evaluation.notifications.filter((n) => n.channelType === "webhook")).toEqual([]);
    w.clock.advance(DEFAULT_LEASE_MS + 1_000);
    const retried = await w.sr.alerts.evaluate(w.admin, { alertId: alert.id });
    expect(retried.evaluation.notifications.filter((n) => n.channelType === "webhook").map((n) => n.status)).toEqual(["sent"]);
    expect(receiver.requests.length).toBe(sent + 1);
    // Recorded now: not sent a third time.
    w.clock.advance(DEFAULT_LEASE_MS + 1_000);
    await w.sr.alerts.evaluate(w.admin, { alertId: alert.id });
    expect(receiver.requests.length).toBe(sent + 1);
  });

  it("does not trust the receiver's private CA unless configured to", async () => {
    const alert = await setUp({ allowPrivateTargets: true });
    const { evaluation } = await w.sr.alerts.evaluate(w.admin, { alertId: alert.id });
    expect(evaluation.notifications[0]).toMatchObject({ channelType: "webhook", status: "failed", error: expect.stringMatching(/certificate/i) });
  });

  it("refuses at delivery a loopback webhook saved while private targets were allowed", async () => {
    const alert = await setUp({ allowPrivateTargets: true, webhookCa: receiverCa.certificatePem });
    w.sr.context.config.allowPrivateTargets = false;
    const before = receiver.requests.length;
    const { evaluation } = await w.sr.alerts.evaluate(w.admin, { alertId: alert.id });
    expect(evaluation.notifications[0]).toMatchObject({ status: "failed", error: expect.stringContaining("Refused to deliver to 127.0.0.1") });
    expect(receiver.requests.length).toBe(before);
  });
});

describe("alert delivery through ports the instance is given", () => {
  it("hands e-mail and webhooks to them instead of SMTP and HTTPS", async () => {
    const mail: MailMessage[] = [];
    const posted: WebhookRequest[] = [];
    w = await createTestWorld({
      projectType: "cert-manager",
      certManager: { mail: { send: async (message) => void mail.push(message) }, webhooks: { post: async (request) => void posted.push(request) } },
    });
    const { certificateProfile } = await w.sr.certificateProfiles.create(w.admin, {
      projectId: w.projectId,
      slug: "short",
      issuerType: "self-signed",
      defaults: { ttlDays: 3, commonName: "soon.test", keyAlgorithm: "EC_prime256v1" },
    });
    await w.sr.certificates.issue(w.admin, { profileId: certificateProfile.id });
    const { alert } = await w.sr.alerts.create(w.admin, {
      projectId: w.projectId,
      name: "expiring",
      eventType: "expiration",
      alertBefore: "7d",
      channels: [
        { channelType: "email", config: { recipients: ["ops@acme.test"] } },
        { channelType: "webhook", config: { url: "https://hooks.acme.test/certificates", signingSecret: SECRET } },
      ],
    });
    const { evaluation } = await w.sr.alerts.evaluate(w.admin, { alertId: alert.id });
    expect(evaluation.notifications.map((n) => `${n.channelType}:${n.status}`)).toEqual(["email:sent", "webhook:sent"]);
    expect(mail).toEqual([expect.objectContaining({ to: ["ops@acme.test"], subject: expect.stringContaining('1 certificate expires within 7d (alert "expiring")') })]);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ url: "https://hooks.acme.test/certificates", headers: { "content-type": "application/json" } });
    expect(posted[0]!.headers["x-strongroom-signature"]).toBe(`sha256=${createHmac("sha256", SECRET).update(posted[0]!.body).digest("hex")}`);
    expect(JSON.parse(posted[0]!.body)).toMatchObject({ event: "certificate.expiration", certificates: [{ commonName: "soon.test" }] });
  });
});
