/**
 * Where an alert webhook may be delivered. The same address classes as discovery apply: loopback
 * and private addresses only when the operator allows private targets, link-local and metadata
 * addresses never. A host name is judged by the address it resolves to at delivery time, and
 * that address is the one dialled, so DNS cannot answer differently between check and connect.
 */
import { lookup } from "node:dns/promises";
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

/** The address to dial for a delivery; throws (a plain Error, recorded on the notification) when it is refused. */
export async function resolveWebhookAddress(url: URL, allowPrivateTargets: boolean): Promise<string> {
  const host = webhookHost(url);
  const address = isIP(host) ? host : (await lookup(host)).address;
  const refusal = addressRefusal(classifyAddress(address), allowPrivateTargets);
  if (refusal) throw new Error(`Refused to deliver to ${address}: ${refusal}`);
  return address;
}
