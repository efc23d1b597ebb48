import { z } from "zod";
import { BadRequestError } from "../../kernel/errors.js";
import { normalizeHost, parseHost } from "../../net/host-name.js";
import { isIcannPublicSuffix } from "../../net/public-suffix.js";

/**
 * Host patterns of proxied services and of an agent proxy's `allowedHosts` (DESIGN.md §7):
 * `api.example.com`, `*.example.com` (exactly one label), either with an optional `:port`,
 * IPv4 literals and bracketed IPv6 literals. A wildcard over a public suffix of the ICANN section
 * (`*.com`, `*.co.uk`) is refused, and a stored one grants nothing.
 */
export interface HostPattern {
  /** The item as written, for messages. */
  readonly text: string;
  readonly wildcard: boolean;
  /** Canonical host (see `normalizeHost`); for a wildcard, the part after `*.`. */
  readonly host: string;
  readonly port: number | null;
}

export interface HostMatchOptions {
  /**
   * The port a portless pattern stands for. Omitted, a portless pattern matches every port (a
   * service's own patterns); bundle grants pass 443.
   */
  readonly portlessPort?: number;
}

export interface HostPatternMatch<T> {
  readonly entry: T;
  readonly pattern: HostPattern;
}

type PatternParse = { readonly pattern: HostPattern } | { readonly problem: string };

const PORT = /^[0-9]{1,5}$/;
const MAX_PORT = 65535;

/** Parses a comma-separated list; throws `BadRequestError` naming the first bad item. */
export function parseHostPatterns(text: string): HostPattern[] {
  const items = splitItems(text);
  return items.map((item, index) => {
    const parsed = readPattern(item);
    if ("pattern" in parsed) return parsed.pattern;
    const where = item === "" ? `item ${index + 1} of "${text}"` : `"${item}"`;
    throw new BadRequestError(`Invalid host pattern ${where}: ${parsed.problem}`, { item: index + 1, pattern: item });
  });
}

/** A list as it is stored: without the blanks around it (those between items are the writer's layout, and parsing ignores them). */
export const tidyHostPatterns = (text: string): string => text.trim();

/**
 * Why a list is a URL rather than host patterns (a scheme or a path in an item), or null. Such
 * input is malformed rather than a bad host, so it is refused with the request's shape (422).
 */
export function urlPartProblem(text: string): string | null {
  for (const item of splitItems(text)) {
    if (item.includes("://")) return `"${item}" includes a scheme; a host pattern names a host, as in api.example.com`;
    if (item.includes("/")) return `"${item}" includes a path; a host pattern names a host, as in api.example.com`;
  }
  return null;
}

/**
 * A host-pattern list field: trimmed item by item, no scheme or path (422); the rest of the
 * syntax is checked by `parseHostPatterns` (400 naming the bad item).
 */
export const hostPatternField = (maxLength: number) =>
  z
    .string()
    .max(maxLength)
    .superRefine((text, ctx) => {
      const problem = urlPartProblem(text);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .transform(tidyHostPatterns);

/** What makes two patterns the same: the canonical host, whether it is a wildcard, and the port. */
export const hostPatternKey = (pattern: HostPattern): string => `${pattern.wildcard ? "*." : ""}${pattern.host}:${pattern.port ?? ""}`;

const compiledCache = new Map<string, readonly HostPattern[]>();
const COMPILED_CACHE_LIMIT = 4096;

/**
 * The valid patterns of stored text, skipping items that do not parse: stored patterns were
 * validated on write, and on the traffic path an unreadable item must grant nothing rather than
 * fail the request. Memoised because the proxy evaluates the same few strings on every request.
 */
export function compileHostPatterns(text: string | null): readonly HostPattern[] {
  if (!text) return [];
  let patterns = compiledCache.get(text);
  if (patterns === undefined) {
    patterns = Object.freeze(
      splitItems(text).flatMap((item) => {
        const parsed = readPattern(item);
        return "pattern" in parsed ? [Object.freeze(parsed.pattern)] : [];
      }),
    );
    if (compiledCache.size >= COMPILED_CACHE_LIMIT) compiledCache.clear();
    compiledCache.set(text, patterns);
  }
  return patterns;
}

export function matchHostPattern(pattern: HostPattern, host: string, port: number, options: HostMatchOptions = {}): boolean {
  const name = normalizeHost(host);
  return name !== null && matchesCanonical(pattern, name, port, options.portlessPort);
}

/** Higher is more specific: exact host over wildcard first, then a port over none. */
export function hostPatternSpecificity(pattern: HostPattern): number {
  return (pattern.wildcard ? 0 : 2) + (pattern.port === null ? 0 : 1);
}

const MOST_SPECIFIC = 3;

/**
 * The entry owning the most specific pattern that matches; among equally specific ones, the first
 * in `entries` order, then in each entry's pattern order.
 */
export function findBestMatch<T>(
  entries: Iterable<T>,
  patternsOf: (entry: T) => readonly HostPattern[],
  host: string,
  port: number,
  options: HostMatchOptions = {},
): HostPatternMatch<T> | null {
  const name = normalizeHost(host);
  if (name === null) return null;
  let best: HostPatternMatch<T> | null = null;
  let bestRank = -1;
  for (const entry of entries) {
    for (const pattern of patternsOf(entry)) {
      const rank = hostPatternSpecificity(pattern);
      if (rank > bestRank && matchesCanonical(pattern, name, port, options.portlessPort)) {
        if (rank === MOST_SPECIFIC) return { entry, pattern };
        best = { entry, pattern };
        bestRank = rank;
      }
    }
  }
  return best;
}

function matchesCanonical(pattern: HostPattern, name: string, port: number, portlessPort: number | undefined): boolean {
  const wantedPort = pattern.port ?? portlessPort;
  if (wantedPort !== undefined && wantedPort !== port) return false;
  if (!pattern.wildcard) return name === pattern.host;
  const labelEnd = name.length - pattern.host.length - 1;
  return (
    labelEnd > 0 &&
    name.endsWith(pattern.host) &&
    name[labelEnd] === "." &&
    name.lastIndexOf(".", labelEnd - 1) === -1
  );
}

function splitItems(text: string): string[] {
  return text.split(",").map((item) => item.trim());
}

function readPattern(item: string): PatternParse {
  if (item === "") return { problem: "empty item" };
  const syntaxProblem = findForeignSyntax(item);
  if (syntaxProblem) return { problem: syntaxProblem };
  const split = splitPort(item);
  if ("problem" in split) return split;
  const port = split.port === null ? null : readPort(split.port);
  if (Number.isNaN(port)) return { problem: `port must be a number from 1 to ${MAX_PORT}` };

  const wildcard = split.host.startsWith("*.");
  const hostText = wildcard ? split.host.slice(2) : split.host;
  if (split.host === "*") return { problem: "a bare * would match every host; write *.example.com" };
  if (hostText.includes("*")) return { problem: "a wildcard is allowed only as the whole leftmost label, as in *.example.com" };
  const parsed = parseHost(hostText);
  if ("problem" in parsed) return parsed;
  if (wildcard && parsed.host.kind !== "dns") return { problem: "a wildcard cannot stand in front of an IP address" };
  // `*.com` would hand a credential to any domain anyone can register under it (DESIGN.md §11).
  if (wildcard && isIcannPublicSuffix(parsed.host.name)) {
    return { problem: `'${parsed.host.name}' is a public suffix: a wildcard over it would match domains anyone can register; name your domain, as in *.example.${parsed.host.name}` };
  }
  return { pattern: { text: item, wildcard, host: parsed.host.name, port } };
}

function findForeignSyntax(item: string): string | null {
  if (/\s/.test(item)) return "contains whitespace";
  if (item.includes("://")) return "must not include a scheme";
  if (item.includes("/")) return "must not include a path";
  if (/[?#@\\]/.test(item)) return "must not include a query, fragment or user info";
  return null;
}

function splitPort(item: string): { host: string; port: string | null } | { problem: string } {
  if (item.startsWith("[")) {
    const close = item.indexOf("]");
    if (close < 0) return { problem: "an IPv6 literal must end with ]" };
    const rest = item.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) return { problem: "unexpected text after the IPv6 literal" };
    return { host: item.slice(0, close + 1), port: rest === "" ? null : rest.slice(1) };
  }
  const parts = item.split(":");
  if (parts.length > 2) return { problem: "an IPv6 literal must be written in brackets, as in [::1]:8443" };
  return { host: parts[0]!, port: parts[1] ?? null };
}

/** NaN for anything but 1–65535. */
function readPort(text: string): number {
  const port = PORT.test(text) ? Number(text) : NaN;
  return port >= 1 && port <= MAX_PORT ? port : NaN;
}
