/** IP address parsing and formatting shared by SAN encoding, the address classifier and target expansion. */
import { isIPv4, isIPv6 } from "node:net";

export interface IpAddress {
  version: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: Buffer;
}

/** Parses a literal address. Zone ids (`fe80::1%eth0`) are refused: they name an interface, not a host. */
export function parseIp(text: string): IpAddress | null {
  if (isIPv4(text)) return { version: 4, bytes: Buffer.from(text.split(".").map(Number)) };
  if (isIPv6(text) && !text.includes("%")) return { version: 6, bytes: ipv6Bytes(text) };
  return null;
}

function ipv6Groups(part: string): number[] {
  if (part === "") return [];
  return part.split(":").flatMap((group) => {
    if (!group.includes(".")) return [parseInt(group, 16)];
    const [a, b, c, d] = group.split(".").map(Number) as [number, number, number, number];
    return [(a << 8) | b, (c << 8) | d];
  });
}

function ipv6Bytes(text: string): Buffer {
  const gap = text.indexOf("::");
  const head = ipv6Groups(gap < 0 ? text : text.slice(0, gap));
  const tail = gap < 0 ? [] : ipv6Groups(text.slice(gap + 2));
  const groups = [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(group, i * 2));
  return bytes;
}

/** Canonical text: dotted quad, or RFC 5952 for IPv6 (lower case, longest zero run compressed). */
export function formatIp(bytes: Uint8Array): string {
  if (bytes.length === 4) return Array.from(bytes).join(".");
  if (bytes.length !== 16) throw new Error(`an IP address has 4 or 16 bytes, not ${bytes.length}`);
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return `::ffff:${formatIp(bytes.subarray(12))}`;
  }
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!);
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j > i ? j : i + 1;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(":");
  return `${hex.slice(0, best.start).join(":")}::${hex.slice(best.start + best.length).join(":")}`;
}

export const ipToBigInt = (bytes: Uint8Array): bigint => BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`);

export function bigIntToIp(value: bigint, version: 4 | 6): Buffer {
  const length = version === 4 ? 4 : 16;
  return Buffer.from(value.toString(16).padStart(length * 2, "0"), "hex");
}

export const addressBits = (version: 4 | 6): number => (version === 4 ? 32 : 128);

export interface Cidr {
  address: IpAddress;
  prefix: number;
}

/** `a.b.c.d/n` or `x::y/n`; a bare address is a /32 (/128). Returns null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf("/");
  const address = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!address) return null;
  if (slash < 0) return { address, prefix: addressBits(address.version) };
  const prefixText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= addressBits(address.version) ? { address, prefix } : null;
}

export function cidrContains(block: Cidr, address: IpAddress): boolean {
  if (block.address.version !== address.version) return false;
  const shift = BigInt(addressBits(address.version) - block.prefix);
  return ipToBigInt(block.address.bytes) >> shift === ipToBigInt(address.bytes) >> shift;
}
