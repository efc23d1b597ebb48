/**
 * An issuing CA, parsed once. Issuing from a PreparedIssuer skips re-reading the CA certificate
 * and re-importing its key on every call, which is most of the per-certificate cost that is
 * not key generation or signing.
 */
import { type KeyObject, createPrivateKey, createPublicKey } from "node:crypto";
import { BadRequestError } from "../kernel/errors.js";
import { type KeyAlgorithm, keyAlgorithmOf } from "./algorithms.js";
import { keyIdentifier, publicKeyBits, readCertificate } from "./certificate-reader.js";
import { encode } from "./der-reader.js";
import { formatName, readName } from "./distinguished-name.js";
import { authorityKeyIdentifierExtension, readBasicConstraints, readKeyIdentifier, readKeyUsages } from "./extensions.js";
import { certificateDer, derToPem } from "./pem.js";
import { MANAGED_EXTENSION_OIDS as OID } from "./vocabulary.js";

/** A CA as storage keeps it: certificate and (decrypted) private key, both PEM. */
export interface IssuerKeyPair {
  certificatePem: string;
  privateKeyPem: string;
}

export interface PreparedIssuer {
  readonly kind: "prepared-issuer";
  readonly certificatePem: string;
  /** Encoded, it becomes the issuer Name of what this CA signs. */
  readonly subjectName: Buffer;
  /** The same Name as RFC 4514 text (the `issuer` of what this CA signs, as parseCertificate reads it). */
  readonly subject: string;
  /** The authorityKeyIdentifier extension of everything this CA signs, encoded once. */
  readonly authorityKeyIdentifier: Buffer;
  readonly privateKey: KeyObject;
  readonly keyAlgorithm: KeyAlgorithm;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly pathLength?: number;
}

export const isPreparedIssuer = (value: unknown): value is PreparedIssuer =>
  typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "prepared-issuer";

function readPrivateKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw new BadRequestError("The issuer's private key is not a readable PEM private key");
  }
}

/** Checks that the pair can sign certificates at all: a CA, allowed to sign, holding the matching key. */
export function prepareIssuer(pair: IssuerKeyPair): PreparedIssuer {
  const der = certificateDer(pair.certificatePem, "issuer certificate");
  let cert: ReturnType<typeof readCertificate>;
  try {
    cert = readCertificate(der);
  } catch (error) {
    throw new BadRequestError(`The issuer certificate cannot be read: ${(error as Error).message}`);
  }
  const constraints = readBasicConstraints(cert.extensions.get(OID.basicConstraints)?.value);
  if (!constraints.isCA) throw new BadRequestError("The issuer certificate is not a CA certificate");
  const usages = readKeyUsages(cert.extensions.get(OID.keyUsage)?.value);
  if (usages && !usages.includes("key_cert_sign")) throw new BadRequestError("The issuer certificate may not sign certificates (no keyCertSign)");
  const privateKey = readPrivateKey(pair.privateKeyPem);
  const publicKeyDer = createPublicKey(privateKey).export({ type: "spki", format: "der" });
  if (!publicKeyDer.equals(cert.subjectPublicKeyInfo)) throw new BadRequestError("The issuer's private key does not match its certificate");
  const keyAlgorithm = keyAlgorithmOf(privateKey);
  if (!keyAlgorithm) throw new BadRequestError("The issuer's key algorithm is not supported");
  return Object.freeze({
    kind: "prepared-issuer" as const,
    certificatePem: derToPem(der, "CERTIFICATE"),
    subjectName: encode(cert.subjectName),
    subject: formatName(readName(cert.subjectName)),
    // The CA's own SKI when it states one, so chains built by other tools still link up.
    authorityKeyIdentifier: authorityKeyIdentifierExtension(
      readKeyIdentifier(cert.extensions.get(OID.subjectKeyIdentifier)?.value) ?? keyIdentifier(publicKeyBits(cert.subjectPublicKeyInfo)),
    ),
    privateKey,
    keyAlgorithm,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    ...(constraints.pathLength !== undefined ? { pathLength: constraints.pathLength } : {}),
  });
}
