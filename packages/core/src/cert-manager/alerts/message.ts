/** What an alert says, as an e-mail and as a webhook body. Pure. */
import type { CertificateRow } from "../certificates/repository.js";
import type { AlertRow } from "./repository.js";
import type { EmailMessage } from "../node/alert-delivery.js";

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

export function emailMessage(alert: AlertRow, certificates: DueCertificate[]): EmailMessage {
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
    subject: `[Strongroom] ${count} within ${alert.alertBefore} (alert "${alert.name}")`,
    text: [`Alert "${alert.name}" (${alert.eventType}, ${alert.alertBefore} ahead):`, "", ...lines, ""].join("\n"),
  };
}
