/**
 * What kind of network an IP address belongs to. Pure and table-driven, so the discovery target
 * check and the agent proxy's egress guard make the same call on the same address.
 */
import { type Cidr, type IpAddress, cidrContains, parseCidr, parseIp } from "./ip.js";

export type AddressClass =
  | "public"
  | "private"
  | "loopback"
  | "link-local"
  | "metadata"
  | "cgnat"
  | "multicast"
  | "broadcast"
  | "unspecified"
  | "reserved"
  | "invalid";

// Most specific first: the first block that contains the address decides.
const RANGES: [string, AddressClass][] = [
  // Cloud instance-metadata endpoints: AWS/GCP/Azure, AWS ECS, Alibaba, Oracle, AWS over IPv6.
  ["169.254.169.254/32", "metadata"],
  ["169.254.170.2/32", "metadata"],
  ["100.100.100.200/32", "metadata"],
  ["192.0.0.192/32", "metadata"],
  ["fd00:ec2::254/128", "metadata"],
  ["255.255.255.255/32", "broadcast"],
  ["0.0.0.0/8", "unspecified"],
  ["10.0.0.0/8", "private"],
  ["172.16.0.0/12", "private"],
  ["192.168.0.0/16", "private"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["100.64.0.0/10", "cgnat"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
  ["192.0.0.0/24", "reserved"],
  ["192.0.2.0/24", "reserved"],
  ["198.51.100.0/24", "reserved"],
  ["203.0.113.0/24", "reserved"],
  ["198.18.0.0/15", "reserved"],
  ["192.88.99.0/24", "reserved"],
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["64:ff9b:1::/48", "private"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "private"],
  ["fc00::/7", "private"],
  ["ff00::/8", "multicast"],
  ["2001:db8::/32", "reserved"],
  ["3fff::/20", "reserved"],
  ["100::/64", "reserved"],
  ["::/96", "reserved"],
];

// Parsed on first use, not at import: the first parse compiles node:net's address patterns
// (~10 ms of every start-up, issue #22), and only outbound requests classify addresses.
let blocks: [Cidr, AddressClass][] | undefined;
const BLOCKS = () => (blocks ??= RANGES.map(([text, kind]) => [parseCidr(text)!, kind]));

/**
 * IPv6 forms that carry an IPv4 address are judged by that address, so `::ffff:127.0.0.1`
 * (IPv4-mapped), `64:ff9b::7f00:1` (NAT64) and `2002:7f00:1::` (6to4) are loopback, not public.
 */
let embeddedV4: [Cidr, (bytes: Buffer) => Buffer][] | undefined;
const EMBEDDED_V4 = () =>
  (embeddedV4 ??= [
    [parseCidr("::ffff:0:0/96")!, (b) => b.subarray(12)],
    [parseCidr("64:ff9b::/96")!, (b) => b.subarray(12)],
    [parseCidr("2002::/16")!, (b) => b.subarray(2, 6)],
  ]);

function classify(address: IpAddress): AddressClass {
  if (address.version === 6) {
    for (const [block, extract] of EMBEDDED_V4()) {
      if (cidrContains(block, address)) return classify({ version: 4, bytes: extract(address.bytes) });
    }
  }
  for (const [block, kind] of BLOCKS()) if (cidrContains(block, address)) return kind;
  return "public";
}

export function classifyAddress(ip: string | IpAddress): AddressClass {
  const address = typeof ip === "string" ? parseIp(ip) : ip;
  return address ? classify(address) : "invalid";
}

/** Never scanned or proxied to, whatever the configuration: nothing legitimate serves TLS there. */
const ALWAYS_REFUSED = new Set<AddressClass>(["link-local", "metadata", "multicast", "broadcast", "unspecified", "invalid"]);

/**
 * Why a connection to an address of this class is refused, or null when it is allowed. Private,
 * loopback, CGNAT and reserved addresses become reachable only when the operator opts in
 * (`setting`: `STRONGROOM_ALLOW_PRIVATE_TARGETS` by default). Multicast, broadcast and unspecified stay refused even
 * then: they never host a TLS endpoint, and `0.0.0.0` quietly dials the local machine.
 */
export function addressRefusal(kind: AddressClass, allowPrivateTargets: boolean, setting = "STRONGROOM_ALLOW_PRIVATE_TARGETS"): string | null {
  if (kind === "public") return null;
  if (ALWAYS_REFUSED.has(kind)) return `${kind} addresses are never allowed`;
  if (allowPrivateTargets) return null;
  return `${kind} addresses are refused unless private targets are allowed (${setting}=true)`;
}
