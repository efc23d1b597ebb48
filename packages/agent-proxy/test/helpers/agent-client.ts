import { ProxyAgent, request } from "undici";

/** An agent as the tests play it: undici behind the proxy, holding only its session token. */
export interface AgentOptions {
  proxyUrl: string;
  /** The whole Proxy-Authorization value, e.g. `Bearer agv_…`; omitted sends none. */
  proxyAuthorization?: string;
  /** The proxy's CA, which the agent trusts for intercepted TLS. */
  proxyCa: string;
  /** false: plain http:// goes as absolute-form requests instead of through CONNECT. */
  tunnelPlainHttp?: boolean;
}

export interface AgentAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): any;
}

export function agentDispatcher(options: AgentOptions): ProxyAgent {
  return new ProxyAgent({
    uri: options.proxyUrl,
    ...(options.proxyAuthorization ? { token: options.proxyAuthorization } : {}),
    requestTls: { ca: options.proxyCa },
    proxyTunnel: options.tunnelPlainHttp ?? true,
  });
}

export async function agentRequest(
  dispatcher: ProxyAgent,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<AgentAnswer> {
  const res = await request(url, { dispatcher, method: (init.method ?? "GET") as "GET", headers: init.headers, body: init.body });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) };
}
