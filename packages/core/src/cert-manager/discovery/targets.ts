/** A discovery job's targetConfig → the concrete host:port list a scan dials. Pure. */
import { BadRequestError } from "../../kernel/errors.js";
import { addressRefusal, classifyAddress } from "../../net/address-class.js";
import { type IpAddress, addressBits, bigIntToIp, formatIp, ipToBigInt, parseCidr, parseIp } from "../../net/ip.js";
import { isHostname } from "../../x509/names-syntax.js";
import { parsePorts } from "../../net/ports.js";

/** Hosts per job (addresses after expansion, plus domains). */
export const MAX_TARGET_HOSTS = 256;
/** Widest CIDR block per family: a /24, or the IPv6 block of the same 256 addresses. */
export const MIN_PREFIX = { 4: 24, 6: 120 } as const;

export interface DiscoveryTarget {
  /** An IP literal or a domain name. */
  host: string;
  port: number;
  /** SNI; set for domains, which the scanner resolves once and dials by address. */
  servername?: string;
}

export interface TargetConfigInput {
  ipRanges?: string[];
  domains?: string[];
  ports?: string;
}

function rangeError(entry: string, reason: string): BadRequestError {
  return new BadRequestError(`Invalid ipRanges entry "${entry}": ${reason}`);
}

/** Addresses of one `ipRanges` entry: an address, a CIDR block, or `first-last`. */
export function expandIpRange(entry: string): IpAddress[] {
  const text = entry.trim();
  const dash = text.indexOf("-");
  let start: IpAddress;
  let count: bigint;
  if (dash >= 0) {
    const first = parseIp(text.slice(0, dash).trim());
    const last = parseIp(text.slice(dash + 1).trim());
    if (!first || !last || first.version !== last.version) throw rangeError(entry, "expected two addresses of the same family");
    count = ipToBigInt(last.bytes) - ipToBigInt(first.bytes) + 1n;
    if (count < 1n) throw rangeError(entry, "the range ends before it starts");
    start = first;
  } else {
    const block = parseCidr(text);
    if (!block) throw rangeError(entry, "expected an IP address, a CIDR block or first-last");
    const { version } = block.address;
    if (block.prefix < MIN_PREFIX[version]) throw rangeError(entry, `CIDR blocks may be no wider than /${MIN_PREFIX[version]}`);
    const hostBits = BigInt(addressBits(version) - block.prefix);
    count = 1n << hostBits;
    // Host bits set (10.0.0.7/24) mean the whole block, as scanners read it.
    start = { version, bytes: bigIntToIp((ipToBigInt(block.address.bytes) >> hostBits) << hostBits, version) };
  }
  if (count > BigInt(MAX_TARGET_HOSTS)) throw rangeError(entry, `at most ${MAX_TARGET_HOSTS} addresses`);
  const base = ipToBigInt(start.bytes);
  return Array.from({ length: Number(count) }, (_, i) => ({ version: start.version, bytes: bigIntToIp(base + BigInt(i), start.version) }));
}

function normalizeDomain(entry: string): string {
  const name = entry.trim().toLowerCase().replace(/\.$/, "");
  if (!isHostname(name)) throw new BadRequestError(`Invalid domain "${entry}": expected a host name such as www.example.com`);
  return name;
}

/**
 * Validates a targetConfig and lists every host × port to dial. Addresses are judged by
 * classifyAddress; domains are judged later, by the scanner, on the address they resolve to.
 */
export function expandTargets(config: TargetConfigInput, options: { allowPrivateTargets: boolean }): DiscoveryTarget[] {
  const ipRanges = config.ipRanges ?? [];
  const domains = config.domains ?? [];
  if (ipRanges.length === 0 && domains.length === 0) throw new BadRequestError("targetConfig needs at least one IP range or domain");
  const ports = parsePorts(config.ports ?? "443");
  const hosts = new Map<string, string | undefined>();
  const addHost = (host: string, servername?: string) => {
    hosts.set(host, servername);
    if (hosts.size > MAX_TARGET_HOSTS) throw new BadRequestError(`Too many targets: at most ${MAX_TARGET_HOSTS} addresses and domains in all`);
  };
  for (const entry of ipRanges) {
    for (const address of expandIpRange(entry)) {
      const text = formatIp(address.bytes);
      const refusal = addressRefusal(classifyAddress(address), options.allowPrivateTargets);
      if (refusal) throw new BadRequestError(`Target ${text === entry.trim() ? text : `${text} (in ${entry.trim()})`} refused: ${refusal}`);
      addHost(text);
    }
  }
  for (const entry of domains) {
    const name = normalizeDomain(entry);
    addHost(name, name);
  }
  return [...hosts].flatMap(([host, servername]) => ports.map((port) => ({ host, port, ...(servername ? { servername } : {}) })));
}
