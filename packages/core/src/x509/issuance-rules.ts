/** What makes a certificate request issuable, as pure checks over plain facts. */
import { BadRequestError } from "../kernel/errors.js";
import type { KeyUsage } from "./vocabulary.js";

export interface IssuanceFacts {
  isCA: boolean;
  pathLength?: number;
  keyUsages: KeyUsage[];
  hasSubject: boolean;
  subjectAltNameCount: number;
  notBefore: Date;
  notAfter: Date;
  /** Absent for self-signed certificates. */
  issuer?: { notBefore: Date; notAfter: Date; pathLength?: number };
}

const day = (date: Date): string => date.toISOString();

/** The first rule the request breaks, as the 400 message; null when it is issuable. */
export function issuanceProblem(facts: IssuanceFacts): string | null {
  const { issuer } = facts;
  if (!facts.hasSubject && facts.subjectAltNameCount === 0) {
    return "A certificate needs a subject (e.g. commonName) or at least one subject alternative name";
  }
  // Written as "not greater" so an invalid date (NaN) fails too.
  if (!(facts.notAfter.getTime() > facts.notBefore.getTime())) return "The certificate's lifetime must be at least one second";
  if (facts.notAfter.getUTCFullYear() > 9999) return "The certificate's lifetime reaches past the year 9999, which X.509 cannot express";
  // RFC 5280 §4.2.1.3: keyCertSign belongs to CA certificates and a CA certificate needs it.
  if (facts.isCA && facts.keyUsages.length > 0 && !facts.keyUsages.includes("key_cert_sign")) {
    return "A CA certificate needs the key_cert_sign key usage";
  }
  if (!facts.isCA && facts.keyUsages.includes("key_cert_sign")) return "key_cert_sign requires basicConstraints.isCA";
  if (!issuer) return null;
  if (facts.notBefore < issuer.notBefore) return `The issuing CA is not valid until ${day(issuer.notBefore)}`;
  if (facts.notBefore >= issuer.notAfter) return `The issuing CA expired at ${day(issuer.notAfter)}`;
  if (facts.notAfter > issuer.notAfter) {
    return `The certificate would outlive its issuing CA (valid until ${day(issuer.notAfter)}); use a shorter ttl`;
  }
  if (facts.isCA && issuer.pathLength !== undefined) {
    if (issuer.pathLength === 0) return "The issuing CA may not issue CA certificates (its pathLength is 0)";
    if (facts.pathLength !== undefined && facts.pathLength >= issuer.pathLength) {
      return `pathLength must be less than the issuing CA's (${issuer.pathLength})`;
    }
  }
  return null;
}

export function assertIssuable(facts: IssuanceFacts): void {
  const problem = issuanceProblem(facts);
  if (problem) throw new BadRequestError(problem);
}
