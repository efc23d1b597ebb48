import { randomBytes } from "node:crypto";
import { certificateFingerprint, createRootCa, prepareIssuer, type PreparedIssuer } from "@strongroom/core/x509";

/**
 * The proxy's own root CA, which signs the certificates it presents to agents for every host it
 * intercepts. EC P-256: small, fast to sign with, accepted by every TLS client agents use.
 */
export interface ProxyCa {
  readonly certificatePem: string;
  /** `SHA256:` + upper-case hex pairs, as the server records it at enrollment. */
  readonly fingerprint: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly issuer: PreparedIssuer;
}

export interface CaKeyPair {
  certificatePem: string;
  privateKeyPem: string;
}

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
const CA_LIFETIME_MS = 5 * YEAR_MS;
/** Clocks disagree: a CA dated from this instant could look not-yet-valid to the server or an agent. */
export const CLOCK_SKEW_MS = 60 * 60 * 1000;

export async function createProxyCa(now: Date): Promise<CaKeyPair> {
  const issued = await createRootCa({
    // A random suffix tells one proxy's CA from another's in a trust store.
    commonName: `Strongroom Agent Proxy CA ${randomBytes(4).toString("hex")}`,
    organization: "Strongroom",
    keyAlgorithm: "EC_prime256v1",
    // Leaves only: nothing below this CA may be a CA.
    pathLength: 0,
    now: new Date(now.getTime() - CLOCK_SKEW_MS),
    ttlMs: CA_LIFETIME_MS,
  });
  return { certificatePem: issued.certificatePem, privateKeyPem: issued.privateKeyPem! };
}

export function loadProxyCa(pair: CaKeyPair): ProxyCa {
  const issuer = prepareIssuer(pair);
  return {
    certificatePem: issuer.certificatePem,
    fingerprint: certificateFingerprint(issuer.certificatePem),
    notBefore: issuer.notBefore,
    notAfter: issuer.notAfter,
    issuer,
  };
}

/** A CA that will not outlast the leaves it must still sign is replaced (and the proxy re-enrolls). */
export const caNeedsReplacing = (ca: ProxyCa, now: Date): boolean => ca.notAfter.getTime() - now.getTime() < 30 * 24 * 60 * 60 * 1000;
