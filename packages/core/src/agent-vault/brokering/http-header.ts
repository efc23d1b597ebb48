/** HTTP header rules shared by credential validation (on write) and injection (on the wire). */

// RFC 9110 token characters.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Headers that describe one connection (RFC 9110 §7.6.1), plus the proxy's own credentials: they
 * never travel past a proxy.
 */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

// A credential in any of these would break the connection itself or the proxy's own handshake
// rather than authenticate to the upstream, so no credential may set them.
const RESERVED_HEADERS = new Set([...HOP_BY_HOP_HEADERS, "host", "content-length"]);

// Headers that say which authority a request is for. The proxy sets Host itself, but a server
// behind a front end may route by these; a placeholder in them would let a credential pick the
// virtual host it goes to, so header substitution never applies to them (nor to reserved ones).
const ROUTING_HEADERS = new Set(["forwarded", "x-forwarded-host", "x-forwarded-server", "x-host", "x-original-host", "x-http-host-override"]);

// What Node accepts in a header value: no CR, LF, NUL or other controls except tab.
const UNSAFE_VALUE_CHARACTER = /[^\t\x20-\x7e\x80-\xff]/;

export const isHeaderToken = (name: string): boolean => TOKEN.test(name);

export const isReservedHeader = (name: string): boolean => RESERVED_HEADERS.has(name.toLowerCase());

/** Whether a placeholder in this request header may be substituted (the `header` surface). */
export const isSubstitutableHeader = (name: string): boolean => !isReservedHeader(name) && !ROUTING_HEADERS.has(name.toLowerCase());

export const isSafeHeaderValue = (value: string): boolean => !UNSAFE_VALUE_CHARACTER.test(value);

/** Why a credential may not set this header, or null when it may. */
export function headerNameProblem(name: string): string | null {
  if (!isHeaderToken(name)) return `headerName "${name}" is not a valid HTTP header name`;
  if (isReservedHeader(name)) return `headerName "${name}" is reserved for the connection and cannot carry a credential`;
  return null;
}
