import { BlockList, isIP } from "node:net";

/**
 * The client's address (DESIGN.md §11), from one setting, STRONGROOM_TRUSTED_PROXIES: when the
 * socket peer is a trusted proxy, the client is the right-most X-Forwarded-For entry that is not
 * itself a trusted proxy; otherwise the socket peer. Entries left of the first untrusted one were
 * written by the client and prove nothing. Trusted-IP lists, lockouts, throttling and audit use
 * this one value.
 */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly size: number;

  /** `cidrs`: addresses or blocks (`10.0.0.0/8`, `::1`); a malformed entry throws with its text. */
  constructor(cidrs: readonly string[]) {
    for (const entry of cidrs) {
      const [address, prefixText, extra] = entry.split("/");
      const family = isIP(address);
      const bits = family === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
      if (family === 0 || extra !== undefined || !(prefix >= 0 && prefix <= bits)) {
        throw new Error(`STRONGROOM_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR block`);
      }
      this.list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
    }
    this.size = cidrs.length;
  }

  /** Comma- or space-separated, as the environment variable holds them. */
  static parse(text: string | undefined): TrustedProxies {
    return new TrustedProxies((text ?? "").split(/[\s,]+/).filter((entry) => entry !== ""));
  }

  has(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.list.check(address, family === 4 ? "ipv4" : "ipv6");
  }

  /** The client's address for a request from `peer` carrying these X-Forwarded-For headers. */
  clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined): string | undefined {
    const socket = unmapped(peer);
    if (socket === undefined || this.size === 0 || !this.has(socket) || forwardedFor === undefined) return socket;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor)
      .split(",")
      .map((hop) => unmapped(hop.trim()))
      .filter((hop): hop is string => hop !== undefined && hop !== "");
    let nearest = socket;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i];
      // Not an address: what lies left of it cannot be trusted; the hop that wrote it is the client.
      if (isIP(hop) === 0) return nearest;
      if (!this.has(hop)) return hop;
      nearest = hop;
    }
    return nearest;
  }
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) as `10.0.0.1`. */
function unmapped(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}
