/** `--listen`: `host:port`, `[v6]:port` or `:port` (loopback). */
export interface ListenAddress {
  host: string;
  port: number;
}

export function parseListen(text: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new Error(`--listen must be host:port (e.g. 127.0.0.1:14322), not "${text}"`);
  return { host: match[1] ?? (match[2] || "127.0.0.1"), port };
}
