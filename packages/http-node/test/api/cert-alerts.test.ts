import { afterAll, beforeAll, describe, expect } from "vitest";
import { type IssuedCertificate, createRootCa, issueCertificate } from "@strongroom/core/x509";
import { type SmtpReceiver, type WebhookReceiver, startSmtpReceiver, startWebhookReceiver } from "@strongroom/core/testing";
import { DAY, certSuite, createProfile, expectBound, q, type CertSuite } from "./cert-fixtures.js";
import { backends, createProject, expectError } from "../../src/testing/harness.js";

const ALERTS = "/api/v1/cert-manager/alerts";
const SECRET = "whsec-0123456789abcdef-never-shown";
const ALERT_KEYS = [
  "id", "projectId", "name", "description", "alertBefore", "eventType", "filters", "enabled", "notificationConfig", "channels", "createdAt", "updatedAt",
].sort();

let receiverCa: IssuedCertificate;
let smtp: SmtpReceiver;
let hooks: WebhookReceiver;

beforeAll(async () => {
  const now = new Date();
  receiverCa = await createRootCa({ commonName: "Webhook Receiver CA", keyAlgorithm: "EC_prime256v1", ttlMs: 30 * DAY, now });
  const leaf = await issueCertificate({
    issuer: { certificatePem: receiverCa.certificatePem, privateKeyPem: receiverCa.privateKeyPem! },
    subjectAltNames: [{ type: "ip_address", value: "127.0.0.1" }],
    keyAlgorithm: "EC_prime256v1",
    ttlMs: 10 * DAY,
    now,
  });
  smtp = await startSmtpReceiver();
  hooks = await startWebhookReceiver(leaf.privateKeyPem!, leaf.certificatePem, SECRET);
});
afterAll(async () => {
  await smtp?.close();
  await hooks?.close();
});

const emailChannel = (recipients: string[] = ["ops@acme.test"]) => ({ channelType: "email", config: { recipients } });

describe.each(backends)("certificate alerts on %s", (backend) => {
  const { maybe } = certSuite(backend);

  /** Every answer of the suite, to prove the signing secret never leaves the server. */
  const seen: string[] = [];
  const record = async <T>(pending: Promise<T>): Promise<T> => {
    const value = await pending;
    seen.push(JSON.stringify(value));
    return value;
  };

  maybe("PATCH enforces every SPEC bound on both sides", async (s) => {
    const { alert } = await record(
      s.ok("POST", ALERTS, { projectId: s.projectId, name: "bounds", eventType: "expiration", alertBefore: "30d", channels: [emailChannel()] }),
    );
    expect(Object.keys(alert).sort()).toEqual(ALERT_KEYS);
    expect(alert).toMatchObject({ description: "", filters: [], enabled: true, notificationConfig: { enableDailyNotification: false } });
    const patch = (body: Record<string, unknown>) => s.send("PATCH", `${ALERTS}/${alert.id}`, body).then((res) => (seen.push(JSON.stringify(res.body)), res));
    await expectBound((name) => patch({ name }), ["n", "n".repeat(255), "bounds"], ["", "n".repeat(256), "   ", 5]);
    await expectBound((description) => patch({ description }), ["", "d".repeat(1000)], ["d".repeat(1001)]);
    const many = (count: number) => Array.from({ length: count }, (_, i) => emailChannel([`ops${i}@acme.test`]));
    await expectBound((channels) => patch({ channels }), [many(1), many(10)], [[], many(11), [{ channelType: "pager", config: {} }]]);
    const recipients = (count: number) => Array.from({ length: count }, (_, i) => `r${i}@acme.test`);
    await expectBound(
      (list) => patch({ channels: [emailChannel(list as string[])] }),
      [recipients(1), recipients(10)],
      [[], recipients(11), ["not an address"], ["a@b"]],
    );
    await expectBound((eventType) => patch({ eventType }), ["expiration"], ["expiry", ""]);
    await expectBound((eventType) => patch({ eventType }), [], ["renewal", "issuance", "revocation"], 400);
    await expectBound((alertBefore) => patch({ alertBefore }), ["1d", "2w", "3m", "1y"], ["30", "30x", "d", ""]);
    await expectBound(
      (filters) => patch({ filters }),
      [[], [{ field: "profile_name", operator: "equals", value: "web" }], [{ field: "include_cas", operator: "equals", value: true }]],
      [[{ field: "issuer", operator: "equals", value: "x" }], [{ field: "san", operator: "regex", value: "x" }], [{ field: "include_cas", operator: "contains", value: "true" }], [{ field: "include_cas", operator: "equals", value: "yes" }]],
    );
    await expectBound((enabled) => patch({ enabled }), [false, true], ["no"]);
    await expectBound((notificationConfig) => patch({ notificationConfig }), [{ enableDailyNotification: true }], [{}, { enableDailyNotification: "daily" }]);
    await expectBound(
      (url) => patch({ channels: [{ channelType: "webhook", config: { url } }] }),
      [hooks.url],
      ["http://127.0.0.1/hook", "ftp://127.0.0.1/", "https://user:pw@127.0.0.1/", "not a url"],
    );
    expectError(await patch({ channels: [{ ...emailChannel(), id: "6f1c1a38-1b7e-4c52-9a53-3d5b1f6f9a10" }] }), 400);
    const after = await record(s.ok("GET", `${ALERTS}/${alert.id}`));
    expect(after.alert).toMatchObject({ name: "bounds", enabled: true, filters: [{ field: "include_cas", operator: "equals", value: "true" }] });
    expectError(await s.send("PATCH", `${ALERTS}/00000000-0000-4000-8000-000000000000`, { name: "x" }), 404);
  });

  maybe("notifies by e-mail and signed webhook once, or daily, and never twice", async (s) => {
    Object.assign(s.api.strongroom.context.config, { smtpUrl: smtp.url, smtpFrom: "alerts@strongroom.test", webhookCa: receiverCa.certificatePem });
    const project = await createProject(s.api, s.token, { projectName: `Alerting ${backend}`, type: "cert-manager" });
    const p: CertSuite = { ...s, projectId: project.id };
    const profile = await createProfile(p, { slug: "web", issuerType: "self-signed", defaults: { keyAlgorithm: "EC_prime256v1" } });
    const issue = async (commonName: string, ttl: string) =>
      (await p.ok("POST", "/api/v1/cert-manager/certificates", { profileId: profile.id, attributes: { commonName, ttl } })).certificate.certificateId as string;
    const soon = await issue("soon.alerts.test", "3d");
    await issue("later.alerts.test", "90d");
    await issue("soon.elsewhere.test", "3d");

    const { alert: once } = await record(
      p.ok("POST", ALERTS, {
        projectId: project.id,
        name: "once",
        eventType: "expiration",
        alertBefore: "1w",
        filters: [{ field: "common_name", operator: "ends_with", value: ".ALERTS.test" }, { field: "profile_name", operator: "equals", value: "web" }],
        channels: [emailChannel(["ops@acme.test", "pki@acme.test"]), { channelType: "webhook", config: { url: hooks.url, signingSecret: SECRET } }],
      }),
    );
    const webhook = once.channels.find((c: any) => c.channelType === "webhook");
    expect(webhook.config).toEqual({ url: hooks.url, hasSigningSecret: true });
    const { alert: daily } = await record(
      p.ok("POST", ALERTS, {
        projectId: project.id,
        name: "daily",
        eventType: "expiration",
        alertBefore: "7d",
        filters: [{ field: "san", operator: "matches", value: "*.alerts.test" }, { field: "common_name", operator: "starts_with", value: "soon" }],
        notificationConfig: { enableDailyNotification: true },
        channels: [emailChannel(["oncall@acme.test"])],
      }),
    );
    // The SAN filter leaves out every certificate: self-signed ones carry no SAN unless asked.
    await p.ok("PATCH", `${ALERTS}/${daily.id}`, { filters: [{ field: "common_name", operator: "matches", value: "soon.*.test" }, { field: "common_name", operator: "contains", value: "alerts" }] });

    const mails = smtp.messages.length;
    const posts = hooks.requests.length;
    const first = await record(p.ok("POST", `${ALERTS}/${once.id}/evaluate`));
    expect(first.evaluation).toMatchObject({ alertId: once.id, dueCertificates: 1 });
    expect(first.evaluation.notifications.map((n: any) => [n.certificateId, n.channelType, n.status])).toEqual([
      [soon, "email", "sent"],
      [soon, "webhook", "sent"],
    ]);
    const mail = smtp.messages.at(-1)!;
    expect(smtp.messages.length).toBe(mails + 1);
    expect(mail.from).toBe("alerts@strongroom.test");
    expect(mail.to.sort()).toEqual(["ops@acme.test", "pki@acme.test"]);
    expect(mail.subject).toContain("1 certificate expires within 1w");
    expect(mail.text).toContain("soon.alerts.test expires");
    expect(mail.text).not.toContain("later.alerts.test");
    expect(mail.text).not.toContain("soon.elsewhere.test");
    expect(hooks.requests.length).toBe(posts + 1);
    const hook = hooks.requests.at(-1)!;
    expect(hook.verified).toBe(true);
    expect(hook.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(hook.body).toMatchObject({ event: "certificate.expiration", alert: { id: once.id, name: "once" }, certificates: [{ id: soon, commonName: "soon.alerts.test", profileName: "web" }] });

    // Nothing new: no second notification, by hand or from the hourly job.
    expect((await record(p.ok("POST", `${ALERTS}/${once.id}/evaluate`))).evaluation.notifications).toEqual([]);
    const daily1 = await record(p.ok("POST", `${ALERTS}/${daily.id}/evaluate`));
    expect(daily1.evaluation.notifications.map((n: any) => n.status)).toEqual(["sent"]);
    expect(await s.api.strongroom.scheduler.runDue()).toContain("certificate-alert-evaluation");
    expect(smtp.messages.length).toBe(mails + 2);
    expect(hooks.requests.length).toBe(posts + 1);

    // A day later the daily alert speaks again; the once alert stays silent.
    s.api.clock.advance(DAY);
    expect(await s.api.strongroom.scheduler.runDue()).toContain("certificate-alert-evaluation");
    expect(smtp.messages.length).toBe(mails + 3);
    expect(smtp.messages.at(-1)!.to).toEqual(["oncall@acme.test"]);
    expect(hooks.requests.length).toBe(posts + 1);
    expect((await record(p.ok("POST", `${ALERTS}/${daily.id}/evaluate`))).evaluation.notifications).toEqual([]);

    // Channels replaced with the webhook named by id keep its secret; a newly due certificate is signed with it.
    const patched = await record(p.ok("PATCH", `${ALERTS}/${once.id}`, { channels: [{ id: webhook.id, channelType: "webhook", config: { url: hooks.url } }] }));
    expect(patched.alert.channels).toEqual([expect.objectContaining({ id: webhook.id, config: { url: hooks.url, hasSigningSecret: true } })]);
    const newer = await issue("new.alerts.test", "2d");
    const second = await record(p.ok("POST", `${ALERTS}/${once.id}/evaluate`));
    expect(second.evaluation.notifications.map((n: any) => [n.certificateId, n.status])).toEqual([[newer, "sent"]]);
    expect(hooks.requests.at(-1)!.verified).toBe(true);

    await record(p.ok("GET", `${ALERTS}${q({ projectId: project.id })}`));
    await record(p.ok("GET", `${ALERTS}/${once.id}`));
    await record(p.ok("DELETE", `${ALERTS}/${once.id}`));
    expectError(await p.send("GET", `${ALERTS}/${once.id}`), 404);
    expect(seen.join("\n")).not.toContain(SECRET);
    const stored = await s.api.strongroom.context.storage.tables.certificateAlertChannels.find({});
    expect(JSON.stringify(stored)).not.toContain(SECRET);
  });

  maybe("lists alerts by project and refuses disabled or unknown ones on evaluate", async (s) => {
    const project = await createProject(s.api, s.token, { projectName: `Alert list ${backend}`, type: "cert-manager" });
    for (const name of ["a", "b", "c"]) {
      s.api.clock.advance(1000);
      await s.ok("POST", ALERTS, { projectId: project.id, name, eventType: "expiration", alertBefore: "30d", enabled: name !== "b", channels: [emailChannel()] });
    }
    const listed = await s.ok("GET", `${ALERTS}${q({ projectId: project.id })}`);
    expect(listed.totalCount).toBe(3);
    expect(listed.alerts.map((a: any) => [a.name, a.enabled])).toEqual([["a", true], ["b", false], ["c", true]]);
    expect((await s.ok("GET", `${ALERTS}${q({ projectId: project.id, offset: 1, limit: 1 })}`)).alerts.map((a: any) => a.name)).toEqual(["b"]);
    expectError(await s.send("POST", `${ALERTS}/${listed.alerts[1].id}/evaluate`), 400);
    expectError(await s.send("POST", `${ALERTS}/00000000-0000-4000-8000-000000000000/evaluate`), 404);
    // An id the server could never have minted is a malformed request, on every alert route.
    for (const [method, suffix] of [["GET", ""], ["PATCH", ""], ["DELETE", ""], ["POST", "/evaluate"]]) {
      expectError(await s.send(method, `${ALERTS}/not-a-uuid${suffix}`, method === "PATCH" ? { name: "x" } : undefined), 422, "ValidationFailure");
    }
    expectError(await s.send("POST", ALERTS, { projectId: project.id, name: "a", eventType: "expiration", alertBefore: "30d", channels: [emailChannel()] }), 400);
    expectError(await s.send("POST", ALERTS, { projectId: project.id, name: "z", eventType: "expiration", alertBefore: "30d", channels: [] }), 422);
  });
});
