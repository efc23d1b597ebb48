import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { AgentProxyOptions } from "../agent-proxy.js";
import { readSealingKey, type KeySource } from "../state/key-source.js";
import { LIMIT_NAMES, parseLimits } from "../server/limits.js";
import { parseListen } from "./listen-address.js";

export const USAGE = `Usage: strongroom-agent-proxy --server URL [--enrollment-token TOKEN] [options]

  --server URL              Strongroom server base URL                 (STRONGROOM_SERVER_URL)
  --enrollment-token TOKEN  one-time token from registering the proxy; needed until it has enrolled
                            (STRONGROOM_ENROLLMENT_TOKEN; the variable keeps it out of ps)
  --listen HOST:PORT        where agents connect; default 127.0.0.1:14322 (STRONGROOM_AGENT_PROXY_LISTEN)
  --data-dir DIR            CA, sealed key and token; default ./agent-proxy-data (STRONGROOM_AGENT_PROXY_DATA_DIR)
  --allow-private-targets   allow private and loopback upstreams; link-local and metadata stay refused
                            (STRONGROOM_ALLOW_PRIVATE_TARGETS=true)
  --ca-file FILE            PEM of the CA that signed the server's certificate, for a private CA
                            (STRONGROOM_CA_FILE, as for the strongroom CLI; NODE_EXTRA_CA_CERTS also works)
  --upstream-ca FILE        extra PEM CAs trusted for upstream TLS (STRONGROOM_AGENT_PROXY_UPSTREAM_CA)
  --limit NAME=VALUE        a bound, repeatable (STRONGROOM_AGENT_PROXY_LIMITS=NAME=VALUE,...); names:
                            ${LIMIT_NAMES.join(", ")}
  --key-fd N                read the sealing key from inherited file descriptor N (STRONGROOM_AGENT_PROXY_KEY_FD)
  --key-file PATH           read the sealing key from a file no other user can read (STRONGROOM_AGENT_PROXY_KEY_FILE)
  -h, --help                this text

  STRONGROOM_AGENT_PROXY_KEY  base64 of 32 bytes sealing the data directory, instead of its key file

Run the proxy as an OS user of its own (or in its own container): whoever runs as its user can
read its data directory and use its token.

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
      "ca-file": { type: "string" },
      "upstream-ca": { type: "string" },
      limit: { type: "string", multiple: true },
      "key-fd": { type: "string" },
      "key-file": { type: "string" },
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
  const serverCaFile = values["ca-file"] ?? env.STRONGROOM_CA_FILE;
  const caFile = values["upstream-ca"] ?? env.STRONGROOM_AGENT_PROXY_UPSTREAM_CA;
  const keySource = sealingKeySource(values["key-fd"] ?? env.STRONGROOM_AGENT_PROXY_KEY_FD, values["key-file"] ?? env.STRONGROOM_AGENT_PROXY_KEY_FILE, env.STRONGROOM_AGENT_PROXY_KEY);
  const limits = parseLimits([env.STRONGROOM_AGENT_PROXY_LIMITS ?? "", ...(values.limit ?? [])]);
  return {
    help: false,
    options: {
      server,
      ...(enrollmentToken ? { enrollmentToken } : {}),
      listen: parseListen(values.listen ?? env.STRONGROOM_AGENT_PROXY_LISTEN ?? "127.0.0.1:14322"),
      dataDir: values["data-dir"] ?? env.STRONGROOM_AGENT_PROXY_DATA_DIR ?? "./agent-proxy-data",
      allowPrivateTargets: values["allow-private-targets"] ?? truthy(env.STRONGROOM_ALLOW_PRIVATE_TARGETS),
      ...(serverCaFile ? { serverCa: readFileSync(serverCaFile, "utf8") } : {}),
      ...(caFile ? { upstreamCa: readFileSync(caFile, "utf8") } : {}),
      ...(keySource ? { sealingKey: readSealingKey(keySource) } : {}),
      limits,
    },
  };
}

/** At most one of the three: two sources would leave it unclear which key sealed the directory. */
function sealingKeySource(fd: string | undefined, file: string | undefined, base64: string | undefined): KeySource | null {
  const given = [fd, file, base64].filter((value) => value !== undefined && value !== "");
  if (given.length > 1) throw new Error("give the sealing key one way only: --key-fd, --key-file or STRONGROOM_AGENT_PROXY_KEY");
  if (fd) {
    if (!/^\d+$/.test(fd) || Number(fd) < 3) throw new Error(`--key-fd must be an inherited file descriptor number (3 or more), not "${fd}"`);
    return { kind: "fd", fd: Number(fd) };
  }
  if (file) return { kind: "file", path: file };
  if (base64) return { kind: "env", base64 };
  return null;
}
