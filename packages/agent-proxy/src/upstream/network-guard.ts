import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { addressRefusal, classifyAddress } from "@strongroom/core/agent";

/**
 * Where a request may go. The host is resolved once and every address judged with core's
 * classifier: link-local and cloud-metadata addresses (169.254.169.254 and kin) are always
 * refused, private, loopback and other non-public ranges unless the operator allows private
 * targets. The proxy then dials the address it checked, never the name, so a second DNS answer
 * (DNS rebinding) cannot move the connection somewhere the check did not see.
 */
export interface Destination {
  /** Canonical host the agent asked for (lower case; IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /** The checked address the proxy dials. */
  readonly address: string;
}

export type Lookup = (host: string) => Promise<string[]>;

export interface GuardOptions {
  allowPrivateTargets: boolean;
  /** DNS resolution; the system resolver by default. */
  lookup?: Lookup;
}

export class DestinationRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationRefusedError";
  }
}

export class DestinationUnresolvedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationUnresolvedError";
  }
}

const systemLookup: Lookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export async function pinDestination(host: string, port: number, options: GuardOptions): Promise<Destination> {
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (options.lookup ?? systemLookup)(host);
    } catch (error) {
      throw new DestinationUnresolvedError(`${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? "lookup failed"})`);
    }
    if (addresses.length === 0) throw new DestinationUnresolvedError(`${host} has no address`);
  }
  let firstRefusal: string | null = null;
  for (const address of addresses) {
    const refusal = refusalOf(address, options.allowPrivateTargets);
    if (refusal === null) return { host, port, address };
    firstRefusal ??= address === host ? `${host}: ${refusal}` : `${host} resolves to ${address}: ${refusal}`;
  }
  throw new DestinationRefusedError(firstRefusal!);
}

/**
 * An address's verdict depends on the address and the setting alone, so it is worked out once
 * (classifying walks every reserved range) rather than on each request to the same destination.
 */
const verdicts = new Map<string, string | null>();
const VERDICTS_KEPT = 4096;

function refusalOf(address: string, allowPrivateTargets: boolean): string | null {
  const key = `${allowPrivateTargets ? "+" : "-"}${address}`;
  let refusal = verdicts.get(key);
  if (refusal === undefined) {
    refusal = addressRefusal(classifyAddress(address), allowPrivateTargets);
    if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
    verdicts.set(key, refusal);
  }
  return refusal;
}
