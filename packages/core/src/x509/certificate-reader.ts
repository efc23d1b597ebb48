/** Reads the fields Strongroom cares about out of certificate DER; used on our own and on scanned certificates. */
import { createPublicKey, hash } from "node:crypto";
import { type KeyAlgorithm, DEFAULT_KEY_ALGORITHM, defaultSignatureAlgorithm, keyAlgorithmOf, signatureAlgorithmByOid } from "./algorithms.js";
import { BadRequestError } from "../kernel/errors.js";
import { type Asn1, children, contents, decode, encode, isContext, readBitString, readOid, readTime } from "./der-reader.js";
import { commonNameOf, formatName, readName, subjectAttributesOf } from "./distinguished-name.js";
import {
  type RawExtension,
  readBasicConstraints,
  readExtendedKeyUsages,
  readExtensions,
  readKeyUsages,
  readSubjectAltNames,
} from "./extensions.js";
import type { ResolvedIssuance } from "./resolved-issuance.js";
import { certificateDer, certificateFingerprint } from "./pem.js";
import { MANAGED_EXTENSION_OIDS } from "./vocabulary.js";
import type { SubjectAltName } from "./vocabulary.js";

export interface CertificateFields {
  serialNumber: string;
  issuerName: Asn1;
  subjectName: Asn1;
  notBefore: Date;
  notAfter: Date;
  subjectPublicKeyInfo: Buffer;
  extensions: Map<string, RawExtension>;
}

/** Serial as lower-case hex without the sign byte DER adds before a high bit. */
const serialHex = (bytes: Buffer): string => {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return bytes.subarray(start).toString("hex");
};

/** Throws (plain Error) on anything that is not a well-formed X.509 certificate. */
export function readCertificate(der: Uint8Array): CertificateFields {
  const [tbs] = children(decode(der), "Certificate");
  const fields = children(tbs, "TBSCertificate");
  const rest = isContext(fields[0], 0) ? fields.slice(1) : fields;
  const [serial, , issuer, validity, subject, spki, ...optional] = rest;
  const [notBefore, notAfter] = children(validity, "Validity");
  if (!issuer || !subject || !spki) throw new Error("malformed TBSCertificate");
  return {
    serialNumber: serialHex(contents(serial, "serialNumber")),
    issuerName: issuer,
    subjectName: subject,
    notBefore: readTime(notBefore),
    notAfter: readTime(notAfter),
    subjectPublicKeyInfo: encode(spki),
    extensions: readExtensions(optional.find((f) => isContext(f, 3))),
  };
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
export const keyIdentifier = (publicKey: Uint8Array): Buffer => hash("sha1", publicKey, "buffer");

/** The subjectPublicKey bits of an encoded SubjectPublicKeyInfo. */
export function publicKeyBits(subjectPublicKeyInfo: Uint8Array): Buffer {
  const [, publicKey] = children(decode(subjectPublicKeyInfo), "SubjectPublicKeyInfo");
  return readBitString(publicKey);
}

export interface ParsedCertificate {
  commonName: string | null;
  /** RFC 4514, most specific first: `CN=leaf,O=Acme`. */
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  isCA: boolean;
  fingerprintSha256: string;
  subjectAltNames: SubjectAltName[];
}

/** A summary of one certificate (PEM, or DER bytes); a 400 when it cannot be read. */
export function parseCertificate(pemOrDer: string | Uint8Array): ParsedCertificate {
  const der = typeof pemOrDer === "string" ? certificateDer(pemOrDer) : pemOrDer;
  try {
    const cert = readCertificate(der);
    const subject = readName(cert.subjectName);
    return {
      commonName: commonNameOf(subject),
      subject: formatName(subject),
      issuer: formatName(readName(cert.issuerName)),
      serialNumber: cert.serialNumber,
      notBefore: cert.notBefore,
      notAfter: cert.notAfter,
      isCA: readBasicConstraints(cert.extensions.get(MANAGED_EXTENSION_OIDS.basicConstraints)?.value).isCA,
      fingerprintSha256: certificateFingerprint(der),
      subjectAltNames: readSubjectAltNames(cert.extensions.get(MANAGED_EXTENSION_OIDS.subjectAltName)?.value),
    };
  } catch (error) {
    throw new BadRequestError(`Not a readable X.509 certificate: ${(error as Error).message}`);
  }
}

const MANAGED = new Set<string>(Object.values(MANAGED_EXTENSION_OIDS));

/**
 * What a certificate says about how it was issued: the plan that would issue its like again —
 * subject and domain components, key algorithm (of its public key), signature algorithm (its
 * issuer's; `signerKeyAlgorithm`'s default when it is not one of ours), key usages, EKUs, basic
 * constraints, SANs, every other extension as raw DER, and its lifetime. For certificates stored
 * before their issuance was recorded. Throws (plain Error) on anything unreadable.
 */
export function issuanceFromCertificate(pem: string, signerKeyAlgorithm?: KeyAlgorithm): ResolvedIssuance {
  const der = certificateDer(pem);
  const cert = readCertificate(der);
  const { subject, domainComponents } = subjectAttributesOf(readName(cert.subjectName));
  const keyAlgorithm = keyAlgorithmOf(createPublicKey({ key: cert.subjectPublicKeyInfo, format: "der", type: "spki" })) ?? DEFAULT_KEY_ALGORITHM;
  const [, signature] = children(decode(der), "Certificate");
  const signatureOid = readOid(children(signature, "signatureAlgorithm")[0]);
  // Issuance writes `CA:FALSE` for every end entity, so only a CA's constraints are part of the plan.
  const basicConstraints = readBasicConstraints(cert.extensions.get(MANAGED_EXTENSION_OIDS.basicConstraints)?.value);
  return {
    subject,
    keyAlgorithm,
    signatureAlgorithm: signatureAlgorithmByOid(signatureOid) ?? defaultSignatureAlgorithm(signerKeyAlgorithm ?? keyAlgorithm),
    keyUsages: readKeyUsages(cert.extensions.get(MANAGED_EXTENSION_OIDS.keyUsage)?.value) ?? [],
    extendedKeyUsages: readExtendedKeyUsages(cert.extensions.get(MANAGED_EXTENSION_OIDS.extKeyUsage)?.value),
    ...(basicConstraints.isCA ? { basicConstraints } : {}),
    subjectAltNames: readSubjectAltNames(cert.extensions.get(MANAGED_EXTENSION_OIDS.subjectAltName)?.value),
    domainComponents,
    customExtensions: [...cert.extensions]
      .filter(([oid]) => !MANAGED.has(oid))
      .map(([oid, extension]) => ({ oid, critical: extension.critical, value: `DER:${extension.value.toString("hex")}` })),
    ttlMs: cert.notAfter.getTime() - cert.notBefore.getTime(),
  };
}
