/**
 * The certificate manager's I/O, as small interfaces: sending alert e-mail, posting alert
 * webhooks, TLS handshakes for discovery. The Node implementations in `node/` are what an
 * instance uses unless `createStrongroom({ certManager })` is handed others (tests pass fakes).
 */
import type { ParsedCertificate } from "../x509/certificate-reader.js";

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
}

export interface MailSender {
  /** Resolves once the message was accepted for delivery; rejects with what went wrong. */
  send(message: MailMessage): Promise<void>;
}

export interface WebhookRequest {
  /** An https URL; where it may point was checked when the channel was saved and is checked again on the address dialled. */
  url: string;
  body: string;
  /** Sent as they are (content type, signature). */
  headers: Record<string, string>;
}

export interface WebhookPoster {
  /** Resolves on a 2xx answer; rejects with why not (refused address, TLS, status, timeout). */
  post(request: WebhookRequest): Promise<void>;
}

export interface ScanTarget {
  host: string;
  port: number;
  servername?: string;
}

export type ScanStatus = "ok" | "closed" | "timeout" | "error";

export interface ScannedCertificate extends ParsedCertificate {
  pem: string;
}

export interface ScanResult extends ScanTarget {
  /** The address dialled; absent when the name did not resolve or the address was refused. */
  address?: string;
  status: ScanStatus;
  /** Leaf first, then the chain as the server sent it. */
  certificates: ScannedCertificate[];
  message: string;
}

export interface ScanOptions {
  /** Handshakes in flight at once. */
  concurrency?: number;
  /** Hard limit per target, from dialling to the end of the handshake. */
  timeoutMs?: number;
  /** Host name → the address to dial. Defaults to the system resolver's first answer. */
  resolve?: (hostname: string) => Promise<string>;
  /**
   * Why an address may not be dialled, or null. Applied to the address actually dialled, so a
   * domain that resolves to a refused address is caught too (see addressRefusal).
   */
  refuseAddress?: (address: string) => string | null;
}

export interface TlsScanner {
  /** One result per target, in target order; never rejects for a target that fails. */
  scan(targets: ScanTarget[], options: ScanOptions): Promise<ScanResult[]>;
}

export interface CertManagerPorts {
  mail: MailSender;
  webhooks: WebhookPoster;
  tls: TlsScanner;
}
