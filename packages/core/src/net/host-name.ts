import { domainToASCII } from "node:url";

/**
 * Canonical host names. Patterns and the hosts the proxy sees go through the same function, so a
 * pattern and a request can only match when they name the same host in the same spelling.
 */
export type HostKind = "dns" | "ipv4" | "ipv6";

export interface CanonicalHost {
  readonly kind: HostKind;
  /** Lower-case, no trailing dot, IDN as punycode; IPv6 compressed and without brackets. */
  readonly name: string;
}

/** Either the canonical host or why the text is not one, phrased to follow "is not a valid host: ". */
export type HostParse = { readonly host: CanonicalHost } | { readonly problem: string };

const MAX_NAME_LENGTH = 253;
// Underscores are not legal in DNS host names but do occur in real internal and cloud hosts.
const DNS_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
// Any last label that a URL parser would read as a number makes the whole name an IPv4 attempt.
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/;
// Strict dotted quad: shorthand, octal and hex forms are refused because resolvers disagree on them.
const IPV4_OCTET = /^(?:0|[1-9][0-9]{0,2})$/;

export function parseHost(text: string): HostParse {
  if (text.startsWith("[")) {
    if (!text.endsWith("]")) return { problem: "an IPv6 literal must end with ]" };
    return parseIpv6(text.slice(1, -1));
  }
  if (text.includes(":")) return parseIpv6(text);
  return parseNamedHost(text);
}

/**
 * The canonical spelling of a host as the proxy receives it (from CONNECT, the Host header or
 * SNI), or null when it is not a valid host name or IP literal. IPv6 may come with or without
 * brackets; the result never has them.
 */
export function normalizeHost(host: string): string | null {
  const parsed = parseHost(host);
  return "host" in parsed ? parsed.host.name : null;
}

/** `host:port` with IPv6 bracketed, for messages and logs. */
export function formatHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

function parseIpv6(text: string): HostParse {
  // The WHATWG URL parser produces the RFC 5952 form; it refuses zone ids, which have no meaning
  // beyond the proxy's own machine.
  // Only hex digits, colons and dots (an embedded IPv4) may reach the URL parser: anything else,
  // such as "@" or "/", would make it read the text as user info or a path instead.
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return { problem: "not a valid IPv6 address" };
  try {
    const bracketed = new URL(`http://[${text}]/`).hostname;
    if (!bracketed.startsWith("[")) return { problem: "not a valid IPv6 address" };
    return { host: { kind: "ipv6", name: bracketed.slice(1, -1) } };
  } catch {
    return { problem: "not a valid IPv6 address" };
  }
}

function parseNamedHost(text: string): HostParse {
  let name = text.toLowerCase();
  if (name.endsWith(".")) name = name.slice(0, -1);
  if (name === "") return { problem: "empty host name" };
  if (/[\x00-\x20\x7f]/.test(name)) return { problem: "contains whitespace or control characters" };
  if (/[^\x00-\x7f]/.test(name)) {
    name = domainToASCII(name);
    if (name === "") return { problem: "not a valid internationalised domain name" };
  }
  const labels = name.split(".");
  if (NUMERIC_LABEL.test(labels[labels.length - 1]!)) return parseIpv4(labels);
  if (name.length > MAX_NAME_LENGTH) return { problem: `longer than ${MAX_NAME_LENGTH} characters` };
  const bad = labels.find((label) => !DNS_LABEL.test(label));
  if (bad !== undefined) {
    return { problem: bad === "" ? "empty label" : `invalid label "${bad}"` };
  }
  return { host: { kind: "dns", name } };
}

function parseIpv4(labels: string[]): HostParse {
  const valid = labels.length === 4 && labels.every((octet) => IPV4_OCTET.test(octet) && Number(octet) <= 255);
  return valid ? { host: { kind: "ipv4", name: labels.join(".") } } : { problem: "not a valid IPv4 address" };
}
