import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { Agent, fetch as undiciFetch } from "undici";

/**
 * How the proxy reaches the Strongroom server when it has a private CA (`--ca-file`). Global
 * fetch only trusts Node's roots plus `NODE_EXTRA_CA_CERTS`, read once at start; an undici Agent
 * takes a `ca` per client, so the CA applies to control-plane calls only (not to upstreams, which
 * have `--upstream-ca`). undici is the library Node's own fetch is built on, so answers and errors
 * look the same either way.
 */
export type ServerFetch = (url: string, init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal }) => Promise<Response>;

/** Node's roots, the given CAs, and `NODE_EXTRA_CA_CERTS` (a `ca` option replaces the defaults, so they are added back). */
export function serverTrust(ca: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const extra = env.NODE_EXTRA_CA_CERTS;
  return [...rootCertificates, ...ca, ...(extra ? [readFileSync(extra, "utf8")] : [])];
}

export interface ServerClient {
  readonly fetch: ServerFetch;
  close(): Promise<void>;
}

/** Global fetch without a CA; with one, an undici client that trusts it. */
export function serverClient(ca: readonly string[] | undefined): ServerClient {
  if (!ca?.length) return { fetch: (url, init) => fetch(url, init), close: async () => undefined };
  const dispatcher = new Agent({ connect: { ca: serverTrust(ca) } });
  return {
    fetch: (url, init) => undiciFetch(url, { ...init, dispatcher }) as unknown as Promise<Response>,
    close: () => dispatcher.close(),
  };
}

const UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_UNTRUSTED",
]);

/** The operator's remedy for an unknown CA, the code otherwise (the CLI says the same for its `--ca-file`). */
export function describeTlsCode(code: string): string {
  return UNTRUSTED.has(code) ? `the server's TLS certificate is not trusted (${code}); pass --ca-file with the CA that signed it` : code;
}
