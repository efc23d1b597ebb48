import type { StrongroomConfig } from "../../kernel/config.js";
import type { CertManagerPorts } from "../ports.js";
import { nodeMailSender } from "./mail-sender.js";
import { nodeTlsScanner } from "./tls-scanner.js";
import { nodeWebhookPoster } from "./webhook-poster.js";

/** The certificate manager's I/O on Node: nodemailer, node:https and node:tls, configured by `config`. */
export const nodeCertManagerPorts = (config: StrongroomConfig): CertManagerPorts => ({
  mail: nodeMailSender(config),
  webhooks: nodeWebhookPoster(config),
  tls: nodeTlsScanner,
});
