/**
 * The request target the proxy forwards: origin-form only (`/path?query`, RFC 9112 §3.2.1). The
 * destination is the CONNECT target or the absolute URL's authority, and the Host header is
 * rewritten to it, but a server that routes by an absolute-form target (RFC 9112 §3.2.2) would
 * ignore that Host: `GET https://other-vhost/` inside a tunnel to this host would reach the other
 * virtual host with this host's credentials. A target starting with `//` is refused too: URL
 * parsers read it as a network-path reference, i.e. another authority.
 */
export function originFormProblem(target: string): string | null {
  if (!target.startsWith("/")) {
    return "Inside a tunnel the request target must be a path (origin-form, starting with /), not an absolute URL, an authority or *";
  }
  if (target.startsWith("//")) return "A request target starting with // names another authority; use a single leading /";
  return null;
}
