import { X509Certificate } from "node:crypto";
import { parseCertificate } from "../../x509/certificate-reader.js";
import { pemBlocks } from "../../x509/pem.js";
import { BadRequestError } from "../../kernel/errors.js";

/** What the control plane keeps of a proxy's own certificate authority; the PEM itself is not stored. */
export interface RootCaFacts {
  /** `SHA256:` + upper-case hex pairs of the DER joined by `:` (DESIGN.md §7). */
  fingerprint: string;
  expiresAt: string;
}

/**
 * Checks the CA certificate a proxy enrolls with: exactly one PEM certificate, readable, a CA
 * (basicConstraints cA true) and valid now. Throws 400 naming the problem.
 */
export function readRootCa(pem: string, now: Date): RootCaFacts {
  const blocks = pemBlocks(pem);
  if (blocks.length !== 1 || blocks[0]!.label !== "CERTIFICATE") {
    throw new BadRequestError("rootCaCertificate must be exactly one PEM CERTIFICATE block");
  }
  const der = blocks[0]!.der;
  // OpenSSL must read it too: the proxy's clients will, and our own reader looks only at some fields.
  try {
    new X509Certificate(der);
  } catch {
    throw new BadRequestError("rootCaCertificate is not a readable X.509 certificate");
  }
  const certificate = parseCertificate(der);
  if (!certificate.isCA) throw new BadRequestError("rootCaCertificate is not a certificate authority (basicConstraints cA is not true)");
  if (certificate.notAfter.getTime() <= now.getTime()) {
    throw new BadRequestError(`rootCaCertificate expired at ${certificate.notAfter.toISOString()}`);
  }
  if (certificate.notBefore.getTime() > now.getTime()) {
    throw new BadRequestError(`rootCaCertificate is not valid before ${certificate.notBefore.toISOString()}`);
  }
  return { fingerprint: certificate.fingerprintSha256, expiresAt: certificate.notAfter.toISOString() };
}
