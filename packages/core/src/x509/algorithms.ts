/** The key and signature algorithms Strongroom issues with (DESIGN.md §8) and how they map to node:crypto and X.509. */
import type { KeyObject } from "node:crypto";
import { BadRequestError } from "../kernel/errors.js";

export const KEY_ALGORITHMS = ["RSA_2048", "RSA_3072", "RSA_4096", "EC_prime256v1", "EC_secp384r1"] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

/** Key algorithm when neither the request nor the profile names one (SPEC.md's sample value). */
export const DEFAULT_KEY_ALGORITHM: KeyAlgorithm = "RSA_2048";

export const SIGNATURE_ALGORITHMS = [
  "RSA-SHA256",
  "RSA-SHA384",
  "RSA-SHA512",
  "ECDSA-SHA256",
  "ECDSA-SHA384",
  "ECDSA-SHA512",
] as const;
export type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[number];

type KeyFamily = "rsa" | "ec";

export const KEY_ALGORITHM_SPECS: Record<
  KeyAlgorithm,
  { family: "rsa"; modulusLength: number } | { family: "ec"; namedCurve: "prime256v1" | "secp384r1" }
> = {
  RSA_2048: { family: "rsa", modulusLength: 2048 },
  RSA_3072: { family: "rsa", modulusLength: 3072 },
  RSA_4096: { family: "rsa", modulusLength: 4096 },
  EC_prime256v1: { family: "ec", namedCurve: "prime256v1" },
  EC_secp384r1: { family: "ec", namedCurve: "secp384r1" },
};

interface SignatureSpec {
  family: KeyFamily;
  hash: "sha256" | "sha384" | "sha512";
  oid: string;
}

// RFC 4055 gives the RSA identifiers an explicit NULL parameter; RFC 5758 gives ECDSA none.
export const SIGNATURE_ALGORITHM_SPECS: Record<SignatureAlgorithm, SignatureSpec> = {
  "RSA-SHA256": { family: "rsa", hash: "sha256", oid: "1.2.840.113549.1.1.11" },
  "RSA-SHA384": { family: "rsa", hash: "sha384", oid: "1.2.840.113549.1.1.12" },
  "RSA-SHA512": { family: "rsa", hash: "sha512", oid: "1.2.840.113549.1.1.13" },
  "ECDSA-SHA256": { family: "ec", hash: "sha256", oid: "1.2.840.10045.4.3.2" },
  "ECDSA-SHA384": { family: "ec", hash: "sha384", oid: "1.2.840.10045.4.3.3" },
  "ECDSA-SHA512": { family: "ec", hash: "sha512", oid: "1.2.840.10045.4.3.4" },
};

export const keyFamily = (algorithm: KeyAlgorithm): KeyFamily => KEY_ALGORITHM_SPECS[algorithm].family;

/** SHA-256 everywhere except P-384, whose strength SHA-256 would cap (NIST SP 800-57). */
export function defaultSignatureAlgorithm(signer: KeyAlgorithm): SignatureAlgorithm {
  if (signer === "EC_secp384r1") return "ECDSA-SHA384";
  return keyFamily(signer) === "ec" ? "ECDSA-SHA256" : "RSA-SHA256";
}

/** The signature algorithm must suit the key that signs: the issuer's, or the subject's own when self-signed. */
export function assertSignatureCompatible(signature: SignatureAlgorithm, signer: KeyAlgorithm): void {
  if (SIGNATURE_ALGORITHM_SPECS[signature].family !== keyFamily(signer)) {
    throw new BadRequestError(`Signature algorithm ${signature} cannot be used with a ${signer} signing key`);
  }
}

/** Which of our algorithms a key is, or null for anything else (Ed25519, RSA-1024, other curves). */
export function keyAlgorithmOf(key: KeyObject): KeyAlgorithm | null {
  const details = key.asymmetricKeyDetails ?? {};
  const match = KEY_ALGORITHMS.find((algorithm) => {
    const spec = KEY_ALGORITHM_SPECS[algorithm];
    if (spec.family !== key.asymmetricKeyType) return false;
    return spec.family === "rsa" ? spec.modulusLength === details.modulusLength : spec.namedCurve === details.namedCurve;
  });
  return match ?? null;
}

/** OID → our name for the signature algorithms we accept on CSRs. */
export const signatureAlgorithmByOid = (oid: string): SignatureAlgorithm | undefined =>
  SIGNATURE_ALGORITHMS.find((a) => SIGNATURE_ALGORITHM_SPECS[a].oid === oid);
