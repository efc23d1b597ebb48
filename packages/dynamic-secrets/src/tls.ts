import { isIP } from "node:net";
import type { ConnectionOptions } from "node:tls";
import type { ProviderTarget } from "@strongroom/core";

/** How long connecting (TCP, TLS, authentication) may take before a provider gives up. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** How long one statement or command may run. */
export const STATEMENT_TIMEOUT_MS = 15_000;

/**
 * TLS options when the inputs carry a CA: the server's certificate must chain to it and name the
 * host the inputs gave (the address dialled is core's resolution of that host). Undefined: no TLS.
 */
export function tlsOptions(target: ProviderTarget, ca: string | undefined): ConnectionOptions | undefined {
  if (!ca) return undefined;
  return {
    ca,
    rejectUnauthorized: true,
    // SNI takes names only; an IP literal is checked against the certificate's IP addresses.
    ...(isIP(target.host) ? {} : { servername: target.host }),
  };
}
