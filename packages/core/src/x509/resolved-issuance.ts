/**
 * What a certificate is to be — subject, keys, usages, names, extensions, lifetime — once every
 * default has been applied: what `issueCertificate` takes besides the issuer, the clock and a CSR.
 * Whoever decides it (the certificate manager merges profile defaults with a request) depends on
 * this toolkit, never the other way round.
 */
import type { KeyAlgorithm, SignatureAlgorithm } from "./algorithms.js";
import type { ExtendedKeyUsage, KeyUsage, SubjectAltName } from "./vocabulary.js";

export interface SubjectAttributes {
  commonName?: string;
  organization?: string;
  organizationalUnit?: string;
  country?: string;
  state?: string;
  locality?: string;
}

export const SUBJECT_ATTRIBUTES = ["commonName", "organization", "organizationalUnit", "country", "state", "locality"] as const;

export interface BasicConstraints {
  isCA: boolean;
  /** Only meaningful when isCA; how many CA certificates may follow this one in a chain. */
  pathLength?: number;
}

export interface CustomExtension {
  oid: string;
  /** A name for people; not encoded. */
  label?: string;
  critical: boolean;
  /** `DER:<hex>` for raw DER, otherwise text written as a UTF8String (see custom-extension-value.ts). */
  value: string;
}

export interface ResolvedIssuance {
  subject: SubjectAttributes;
  keyAlgorithm: KeyAlgorithm;
  signatureAlgorithm: SignatureAlgorithm;
  keyUsages: KeyUsage[];
  extendedKeyUsages: ExtendedKeyUsage[];
  basicConstraints?: BasicConstraints;
  subjectAltNames: SubjectAltName[];
  domainComponents: string[];
  customExtensions: CustomExtension[];
  /** The lifetime, from `notBefore`. */
  ttlMs: number;
  /** When the certificate starts being valid; the moment of issuance when absent. */
  notBefore?: Date;
}
