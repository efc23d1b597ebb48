/**
 * Where an alert webhook may be delivered. The same address classes as discovery apply: loopback
 * and private addresses only when the operator allows private targets, link-local and metadata
 * addresses never. A host name can only be judged by the address it resolves to, which the
 * delivery does (see node/webhook-poster.ts).
 */
import { isIP } from "node:net";
import { BadRequestError } from "../../kernel/errors.js";
import { addressRefusal, classifyAddress } from "../../net/address-class.js";

/** The URL's host without IPv6 brackets. */
export const webhookHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1");

const isLocalhostName = (host: string): boolean => host === "localhost" || host.endsWith(".localhost");

/** Checked when a channel is saved: what can be judged without DNS (IP literals, `localhost`). */
export function assertWebhookUrlAllowed(text: string, allowPrivateTargets: boolean): void {
  const url = new URL(text);
  const host = webhookHost(url).toLowerCase();
  const refusal = isIP(host)
    ? addressRefusal(classifyAddress(host), allowPrivateTargets)
    : isLocalhostName(host)
      ? addressRefusal("loopback", allowPrivateTargets)
      : null;
  if (refusal) throw new BadRequestError(`Webhook URL ${url.origin} refused: ${refusal}`);
}
