import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Context } from "../kernel/context.js";
import { BadRequestError } from "../kernel/errors.js";
import { addressRefusal, classifyAddress } from "../net/address-class.js";
import type { ProviderTarget } from "./ports.js";

const SETTING = "STRONGROOM_ALLOW_PRIVATE_DATABASES";

/**
 * Where a provider may connect for `endpoint`: the host resolved once, here, and its address
 * judged by class — metadata, link-local and the like never; private, loopback, CGNAT and
 * reserved only when the operator allows private databases. The provider dials this address, so
 * a name that resolves elsewhere later cannot slip past the check.
 */
export async function vetTarget(ctx: Context, endpoint: { host: string; port: number }): Promise<ProviderTarget> {
  const host = endpoint.host.replace(/^\[(.*)\]$/, "$1");
  let address = host;
  if (isIP(host) === 0) {
    try {
      address = (await lookup(host)).address;
    } catch {
      throw new BadRequestError(`The database host '${host}' does not resolve`);
    }
  }
  const refusal = addressRefusal(classifyAddress(address), ctx.config.allowPrivateDatabases, SETTING);
  if (refusal) throw new BadRequestError(`Refusing to connect to '${host}' (${address}): ${refusal}`);
  return { address, port: endpoint.port, host };
}
