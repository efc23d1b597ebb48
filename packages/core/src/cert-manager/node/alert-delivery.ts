/** Sending an alert's message: e-mail over SMTP (nodemailer) and signed HTTPS webhooks. */
import { createHmac } from "node:crypto";
import { request } from "node:https";
import { isIP } from "node:net";
import { checkServerIdentity, rootCertificates } from "node:tls";
import { createTransport } from "nodemailer";
import type { StrongroomConfig } from "../../kernel/config.js";
import { resolveWebhookAddress, webhookHost } from "../alerts/webhook-target.js";

export const SIGNATURE_HEADER = "x-strongroom-signature";

/** `sha256=` + hex HMAC-SHA256 of the exact body bytes; receivers recompute it with their copy of the secret. */
export const webhookSignature = (secret: string, body: string): string => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

export interface EmailMessage {
  subject: string;
  text: string;
}

export async function sendEmail(config: StrongroomConfig, recipients: string[], message: EmailMessage): Promise<void> {
  if (!config.smtpUrl) throw new Error("E-mail is not configured on this server (SMTP_URL)");
  const transport = createTransport({ url: config.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  try {
    await transport.sendMail({
      from: config.smtpFrom,
      to: recipients,
      // A header is one line whatever the alert's name holds.
      subject: message.subject.replace(/[\r\n]+/g, " "),
      text: message.text,
    });
  } finally {
    transport.close();
  }
}

/**
 * POSTs `body` to the webhook. Trusts the system roots plus `config.webhookCa`; follows no
 * redirect; anything but a 2xx answer is a failure. The connection goes to the address that was
 * checked, while TLS still verifies the certificate against the URL's host name.
 */
export async function postWebhook(config: StrongroomConfig, target: string, body: string, signingSecret: string | null): Promise<void> {
  const url = new URL(target);
  const address = await resolveWebhookAddress(url, config.allowPrivateTargets);
  const host = webhookHost(url);
  const headers: Record<string, string | number> = {
    host: url.host,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "user-agent": "strongroom-alerts",
    ...(signingSecret !== null ? { [SIGNATURE_HEADER]: webhookSignature(signingSecret, body) } : {}),
  };
  await new Promise<void>((resolve, reject) => {
    const req = request(
      {
        host: address,
        port: url.port || 443,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers,
        agent: false,
        ...(isIP(host) ? {} : { servername: host }),
        ...(config.webhookCa ? { ca: [...rootCertificates, config.webhookCa] } : {}),
        checkServerIdentity: (_name, certificate) => checkServerIdentity(host, certificate),
        signal: AbortSignal.timeout(config.webhookTimeoutMs),
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        res.once("end", () => (status >= 200 && status < 300 ? resolve() : reject(new Error(`The webhook answered HTTP ${status}`))));
        res.once("error", reject);
      },
    );
    req.once("error", (error) =>
      reject(error.name === "TimeoutError" || error.name === "AbortError" ? new Error(`The webhook did not answer within ${config.webhookTimeoutMs} ms`) : error),
    );
    req.end(body);
  });
}
