/**
 * The agent's session token from `Proxy-Authorization`. Two forms, because agents reach proxies
 * through very different clients:
 *
 * - `Bearer agv_…`, for clients that let the caller set the header (undici's ProxyAgent `token`);
 * - `Basic base64(user:agv_…)`, which is what every client derives from a proxy URL with user
 *   info (`HTTPS_PROXY=http://agent:agv_…@127.0.0.1:14322`). The password carries the token; the
 *   user name is ignored, or is the token itself when the password is empty (`http://agv_…@host`).
 *
 * Null when there is no token to try; the token's validity is the session table's business.
 */
export function sessionTokenFrom(header: string | string[] | undefined): string | null {
  if (typeof header !== "string") return null;
  const match = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(header);
  if (!match) return null;
  const scheme = match[1]!.toLowerCase();
  if (scheme === "bearer") return match[2]!;
  if (scheme !== "basic") return null;
  const decoded = Buffer.from(match[2]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? "" : decoded.slice(colon + 1);
  return password || user || null;
}

export const PROXY_AUTHENTICATE = ['Bearer realm="strongroom-agent-proxy"', 'Basic realm="strongroom-agent-proxy", charset="UTF-8"'];
