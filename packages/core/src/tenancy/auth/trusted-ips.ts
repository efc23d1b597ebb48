import { cidrContains, parseCidr, parseIp, type Cidr } from "../../net/ip.js";

/** A trusted-IP list as universal auth stores it (`clientSecretTrustedIps`, `accessTokenTrustedIps`). */
export type TrustedIpList = readonly { readonly ipAddress: string }[];

/** Whether an entry is an address or a CIDR block (the schemas refuse anything else). */
export const isTrustedIpEntry = (text: string): boolean => parseCidr(text.trim()) !== null;

/** The list's blocks; entries that do not parse (stored before they were validated) match nothing. */
export function trustedBlocks(list: TrustedIpList): Cidr[] {
  return list.flatMap((entry) => {
    const block = parseCidr(entry.ipAddress.trim());
    return block ? [block] : [];
  });
}

/**
 * Whether a caller at `ip` may use what the list guards. An empty list trusts every address; a
 * non-empty one only the addresses it covers, so a caller whose address is unknown (an
 * in-process call) is refused. `::ffff:a.b.c.d` counts as `a.b.c.d`.
 */
export function ipTrusted(ip: string | undefined, list: TrustedIpList | readonly Cidr[]): boolean {
  if (list.length === 0) return true;
  if (ip === undefined) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = parseIp(mapped ? mapped[1] : ip);
  if (!address) return false;
  const blocks = list.map((entry) => ("ipAddress" in entry ? parseCidr(entry.ipAddress.trim()) : entry));
  return blocks.some((block) => block !== null && cidrContains(block, address));
}
