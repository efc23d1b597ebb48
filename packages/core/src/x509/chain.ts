/** Certificate chains as PEM text: what an issuance answer hands out besides the certificate. */
import { X509Certificate } from "node:crypto";
import { derToPem, pemBlocks } from "./pem.js";

/** Whether a certificate is a root: issued by itself and signed with its own key. */
function isSelfSigned(der: Buffer): boolean {
  const certificate = new X509Certificate(der);
  return certificate.subject === certificate.issuer && certificate.verify(certificate.publicKey);
}

/**
 * The chain without its root certificates (Infisical's `removeRootsFromChain`): a relying party
 * has the root in its trust store already, and a server should not send it.
 */
export function withoutRoots(chainPem: string): string {
  return pemBlocks(chainPem)
    .filter((block) => block.label === "CERTIFICATE" && !isSelfSigned(block.der))
    .map((block) => derToPem(block.der, "CERTIFICATE"))
    .join("");
}
