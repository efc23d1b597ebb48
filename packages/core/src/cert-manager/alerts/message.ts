/** What an alert says, as an e-mail and as a signed webhook request. Pure. */
import { createHmac } from "node:crypto";
import type { MailMessage, WebhookRequest } from "../ports.js";
import type { AlertRow, CertificateRow } from "../tables.js";

export const SIGNATURE_HEADER = "x-strongroom-signature";

/** `sha256=` + hex HMAC-SHA256 of the exact body bytes; receivers recompute it with their copy of the secret. */
export const webhookSignature = (secret: string, body: string): string => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

export interface DueCertificate {
  row: CertificateRow;
  profileName: string | null;
}

const describe = ({ row, profileName }: DueCertificate) => ({
  id: row.id,
  commonName: row.commonName,
  subjectAltNames: row.subjectAltNames,
  serialNumber: row.serialNumber,
  fingerprint: row.fingerprint,
  notBefore: row.notBefore,
  notAfter: row.notAfter,
  source: row.source,
  isCA: row.isCA,
  profileName,
});

/** The webhook body: event, alert and certificates; `sentAt` inside the signed body lets receivers refuse replays. */
export function webhookBody(alert: AlertRow, certificates: DueCertificate[], sentAt: Date): string {
  return JSON.stringify({
    event: `certificate.${alert.eventType}`,
    alert: { id: alert.id, projectId: alert.projectId, name: alert.name, eventType: alert.eventType, alertBefore: alert.alertBefore },
    sentAt: sentAt.toISOString(),
    certificates: certificates.map(describe),
  });
}

/** The request a webhook channel sends: JSON, signed when the channel has a signing secret. */
export function webhookRequest(url: string, body: string, signingSecret: string | null): WebhookRequest {
  return {
    url,
    body,
    headers: {
      "content-type": "application/json",
      ...(signingSecret !== null ? { [SIGNATURE_HEADER]: webhookSignature(signingSecret, body) } : {}),
    },
  };
}

export function emailMessage(alert: AlertRow, recipients: string[], certificates: DueCertificate[]): MailMessage {
  const count = certificates.length === 1 ? "1 certificate expires" : `${certificates.length} certificates expire`;
  const lines = certificates.map(({ row }) => {
    const names = row.subjectAltNames.map((san) => san.value).join(", ");
    return [
      `- ${row.commonName ?? "(no common name)"} expires ${row.notAfter}`,
      `  serial ${row.serialNumber}, ${row.fingerprint}`,
      `  ${row.source}${names ? `; names: ${names}` : ""}`,
    ].join("\n");
  });
  return {
    to: recipients,
    subject: `[Strongroom] ${count} within ${alert.alertBefore} (alert "${alert.name}")`,
    text: [`Alert "${alert.name}" (${alert.eventType}, ${alert.alertBefore} ahead):`, "", ...lines, ""].join("\n"),
  };
}
