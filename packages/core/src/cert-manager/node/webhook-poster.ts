/** Alert webhooks over node:https, to the address that was checked. */
import { lookup } from "node:dns/promises";
import { request } from "node:https";
import { isIP } from "node:net";
import { checkServerIdentity, rootCertificates } from "node:tls";
import type { StrongroomConfig } from "../../kernel/config.js";
import { addressRefusal, classifyAddress } from "../../net/address-class.js";
import { webhookHost } from "../alerts/webhook-target.js";
import type { WebhookPoster } from "../ports.js";

/**
 * The address to dial for a delivery; throws (a plain Error, recorded on the notification) when it
 * is refused. A host name is judged by the address it resolves to now, and that address is the one
 * dialled, so DNS cannot answer differently between check and connect.
 */
export async function resolveWebhookAddress(url: URL, allowPrivateTargets: boolean): Promise<string> {
  const host = webhookHost(url);
  const address = isIP(host) ? host : (await lookup(host)).address;
  const refusal = addressRefusal(classifyAddress(address), allowPrivateTargets);
  if (refusal) throw new Error(`Refused to deliver to ${address}: ${refusal}`);
  return address;
}

/**
 * POSTs the body. Trusts the system roots plus `config.webhookCa`; follows no redirect; anything
 * but a 2xx answer is a failure. The connection goes to the address that was checked, while TLS
 * still verifies the certificate against the URL's host name. Reads the configuration at every
 * delivery, so a changed setting applies to the next one.
 */
export function nodeWebhookPoster(config: StrongroomConfig): WebhookPoster {
  return {
    async post({ url: target, body, headers: given }) {
      const url = new URL(target);
      const address = await resolveWebhookAddress(url, config.allowPrivateTargets);
      const host = webhookHost(url);
      const headers: Record<string, string | number> = {
        host: url.host,
        ...given,
        "content-length": Buffer.byteLength(body),
        "user-agent": "strongroom-alerts",
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
          reject(
            error.name === "TimeoutError" || error.name === "AbortError" ? new Error(`The webhook did not answer within ${config.webhookTimeoutMs} ms`) : error,
          ),
        );
        req.end(body);
      });
    },
  };
}
