import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { AgentProxyOptions } from "./agent-proxy.js";
import { parseListen } from "./listen-address.js";

export const USAGE = `Usage: strongroom-agent-proxy --server URL [--enrollment-token TOKEN] [options]

  --server URL              Strongroom server base URL                 (STRONGROOM_SERVER_URL)
  --enrollment-token TOKEN  one-time token from registering the proxy; needed until it has enrolled
                            (STRONGROOM_ENROLLMENT_TOKEN; the variable keeps it out of ps)
  --listen HOST:PORT        where agents connect; default 127.0.0.1:14322 (STRONGROOM_AGENT_PROXY_LISTEN)
  --data-dir DIR            CA, sealed key and token; default ./agent-proxy-data (STRONGROOM_AGENT_PROXY_DATA_DIR)
  --allow-private-targets   allow private and loopback upstreams; link-local and metadata stay refused
                            (STRONGROOM_ALLOW_PRIVATE_TARGETS=true)
  --upstream-ca FILE        extra PEM CAs trusted for upstream TLS (STRONGROOM_AGENT_PROXY_UPSTREAM_CA)
  -h, --help                this text

  STRONGROOM_AGENT_PROXY_KEY  base64 of 32 bytes sealing the data directory, instead of its key file

Agents use http://HOST:PORT as their HTTP(S) proxy with their session token in Proxy-Authorization
(Bearer agv_..., or Basic with the token as the password: http://agent:agv_...@HOST:PORT), and trust
the CA served at GET http://HOST:PORT/_agent-vault/ca. SIGHUP polls the server at once.`;

export type CliCommand = { help: true } | { help: false; options: AgentProxyOptions };

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());

/** Flags win over the environment. Throws with a message for the operator. */
export function readCliOptions(argv: readonly string[], env: NodeJS.ProcessEnv): CliCommand {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      server: { type: "string" },
      "enrollment-token": { type: "string" },
      listen: { type: "string" },
      "data-dir": { type: "string" },
      "allow-private-targets": { type: "boolean" },
      "upstream-ca": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return { help: true };
  const server = values.server ?? env.STRONGROOM_SERVER_URL;
  if (!server) throw new Error("--server is required");
  if (!/^https?:\/\//i.test(server)) throw new Error(`--server must be an http:// or https:// URL, not "${server}"`);
  const enrollmentToken = values["enrollment-token"] ?? env.STRONGROOM_ENROLLMENT_TOKEN;
  const caFile = values["upstream-ca"] ?? env.STRONGROOM_AGENT_PROXY_UPSTREAM_CA;
  const key = env.STRONGROOM_AGENT_PROXY_KEY;
  return {
    help: false,
    options: {
      server,
      ...(enrollmentToken ? { enrollmentToken } : {}),
      listen: parseListen(values.listen ?? env.STRONGROOM_AGENT_PROXY_LISTEN ?? "127.0.0.1:14322"),
      dataDir: values["data-dir"] ?? env.STRONGROOM_AGENT_PROXY_DATA_DIR ?? "./agent-proxy-data",
      allowPrivateTargets: values["allow-private-targets"] ?? truthy(env.STRONGROOM_ALLOW_PRIVATE_TARGETS),
      ...(caFile ? { upstreamCa: readFileSync(caFile, "utf8") } : {}),
      ...(key ? { sealingKey: Buffer.from(key, "base64") } : {}),
    },
  };
}
