import type { IncomingHttpHeaders } from "node:http";
import { HOP_BY_HOP_HEADERS } from "@strongroom/core/agent";

// An agent's `Proxy-Authorization` is its session token: the shared list includes it.
const HOP_BY_HOP = HOP_BY_HOP_HEADERS;

/**
 * What frames and routes a message is never the sender's to declare hop-by-hop: `Connection:
 * content-length` on a GET would otherwise leave its body unframed, and the upstream would read it
 * as a second request. The proxy sets these itself (framing.ts, the Host rewrite).
 */
export const FRAMING_AND_ROUTING: ReadonlySet<string> = new Set(["content-length", "transfer-encoding", "host"]);

/** The names a `Connection` header lists are hop-by-hop for this message too, except framing and routing. */
function listedInConnection(value: string | string[] | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return new Set(
    text
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name && !FRAMING_AND_ROUTING.has(name)),
  );
}

/** The end-to-end request headers, lower-case names as Node parsed them. */
export function endToEndHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const listed = listedInConnection(headers.connection);
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name)) continue;
    result[name] = value;
  }
  return result;
}

/** The end-to-end response headers from Node's flat `rawHeaders`, keeping case, order and repeats. */
export function endToEndRawHeaders(raw: readonly string[]): string[] {
  const connection: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === "connection") connection.push(raw[i + 1]!);
  const listed = listedInConnection(connection);
  const result: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || listed.has(name)) continue;
    result.push(raw[i]!, raw[i + 1]!);
  }
  return result;
}
