/** Alert e-mail over SMTP (nodemailer), to the server `config.smtpUrl` names. */
import type * as nodemailer from "nodemailer";
import { lazyModule } from "../../kernel/lazy-module.js";
import type { StrongroomConfig } from "../../kernel/config.js";
import type { MailSender } from "../ports.js";

/** Reads the configuration at every send, so a changed setting applies to the next message. */
const smtp = lazyModule<typeof nodemailer>("nodemailer");

export function nodeMailSender(config: StrongroomConfig): MailSender {
  return {
    async send(message) {
      if (!config.smtpUrl) throw new Error("E-mail is not configured on this server (SMTP_URL)");
      const transport = smtp().createTransport({ url: config.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
      try {
        await transport.sendMail({
          from: config.smtpFrom,
          to: message.to,
          // A header is one line whatever the alert's name holds.
          subject: message.subject.replace(/[\r\n]+/g, " "),
          text: message.text,
        });
      } finally {
        transport.close();
      }
    },
  };
}
