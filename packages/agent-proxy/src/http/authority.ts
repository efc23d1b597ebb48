import { normalizeHost } from "@strongroom/core/agent";

/**
 * `host:port` as a CONNECT line or an absolute URL carries it: IPv6 in brackets, the port
 * optional only where the scheme gives a default. The host comes back canonical, so decisions,
 * certificates and caches all key on one spelling.
 */
export interface Authority {
  host: string;
  port: number;
}

export function parseAuthority(text: string, defaultPort?: number): Authority | null {
  const match = /^(\[[^\]]*\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  if (!match) return null;
  const host = normalizeHost(match[1]!);
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (host === null || port === undefined || port < 1 || port > 65535) return null;
  return { host, port };
}

/** An absolute-form `http://` request target, split into authority and the raw origin-form rest. */
export function parseAbsoluteHttp(target: string): { authority: Authority; path: string } | null {
  const match = /^http:\/\/([^/?#]*)([^#]*)/i.exec(target);
  if (!match || match[1]!.includes("@")) return null;
  const authority = parseAuthority(match[1]!, 80);
  if (!authority) return null;
  const rest = match[2]!;
  return { authority, path: rest.startsWith("/") ? rest : `/${rest}` };
}
