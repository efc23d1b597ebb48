/**
 * The key usages, key algorithms and signing algorithms of the KMS, with Infisical's names (its
 * API reference and `@infisical/sdk` v5): `aes-256-gcm`, `RSA_4096`, `ECC_NIST_P256`,
 * `HMAC_SHA_256`, `RSASSA_PSS_SHA_256`, `ECDSA_SHA_256`, `ED25519_SHA_512`... Pure data and the
 * decisions read from it; no key is touched here.
 */
export const KEY_USAGES = ["encrypt-decrypt", "sign-verify", "generate-verify-mac"] as const;
export type KeyUsage = (typeof KEY_USAGES)[number];

export type HashName = "sha256" | "sha384" | "sha512";

/** How each key algorithm is made and used. */
export type KeySpec =
  | { readonly usage: "encrypt-decrypt"; readonly kind: "aes"; readonly keyBytes: 16 | 32 }
  | { readonly usage: "generate-verify-mac"; readonly kind: "hmac"; readonly hash: HashName; readonly keyBytes: number }
  | { readonly usage: "sign-verify"; readonly kind: "rsa"; readonly modulusLength: 2048 | 3072 | 4096 }
  | { readonly usage: "sign-verify"; readonly kind: "ec"; readonly namedCurve: "P-256" | "P-384" }
  | { readonly usage: "sign-verify"; readonly kind: "ed25519" };

export const KEY_SPECS = {
  "aes-256-gcm": { usage: "encrypt-decrypt", kind: "aes", keyBytes: 32 },
  "aes-128-gcm": { usage: "encrypt-decrypt", kind: "aes", keyBytes: 16 },
  RSA_2048: { usage: "sign-verify", kind: "rsa", modulusLength: 2048 },
  RSA_3072: { usage: "sign-verify", kind: "rsa", modulusLength: 3072 },
  RSA_4096: { usage: "sign-verify", kind: "rsa", modulusLength: 4096 },
  ECC_NIST_P256: { usage: "sign-verify", kind: "ec", namedCurve: "P-256" },
  ECC_NIST_P384: { usage: "sign-verify", kind: "ec", namedCurve: "P-384" },
  ECC_NIST_EDWARDS25519: { usage: "sign-verify", kind: "ed25519" },
  // Key sizes as AWS KMS: as long as the hash's output.
  HMAC_SHA_256: { usage: "generate-verify-mac", kind: "hmac", hash: "sha256", keyBytes: 32 },
  HMAC_SHA_384: { usage: "generate-verify-mac", kind: "hmac", hash: "sha384", keyBytes: 48 },
  HMAC_SHA_512: { usage: "generate-verify-mac", kind: "hmac", hash: "sha512", keyBytes: 64 },
} as const satisfies Record<string, KeySpec>;

export type KeyAlgorithm = keyof typeof KEY_SPECS;
export const KEY_ALGORITHMS = Object.keys(KEY_SPECS) as [KeyAlgorithm, ...KeyAlgorithm[]];

export type MacAlgorithm = Extract<KeyAlgorithm, `HMAC_${string}`>;
export const MAC_ALGORITHMS = KEY_ALGORITHMS.filter((a) => KEY_SPECS[a].usage === "generate-verify-mac") as [MacAlgorithm, ...MacAlgorithm[]];

/** How a signing algorithm signs: the padding (RSA), the hash, and whether it signs a digest or a message. */
export type SigningSpec =
  | { readonly family: "rsa"; readonly padding: "pss" | "pkcs1"; readonly hash: HashName }
  | { readonly family: "ec"; readonly hash: HashName }
  | { readonly family: "ed25519"; readonly prehashed: boolean };

export const SIGNING_SPECS = {
  RSASSA_PSS_SHA_512: { family: "rsa", padding: "pss", hash: "sha512" },
  RSASSA_PSS_SHA_384: { family: "rsa", padding: "pss", hash: "sha384" },
  RSASSA_PSS_SHA_256: { family: "rsa", padding: "pss", hash: "sha256" },
  RSASSA_PKCS1_V1_5_SHA_512: { family: "rsa", padding: "pkcs1", hash: "sha512" },
  RSASSA_PKCS1_V1_5_SHA_384: { family: "rsa", padding: "pkcs1", hash: "sha384" },
  RSASSA_PKCS1_V1_5_SHA_256: { family: "rsa", padding: "pkcs1", hash: "sha256" },
  ECDSA_SHA_512: { family: "ec", hash: "sha512" },
  ECDSA_SHA_384: { family: "ec", hash: "sha384" },
  ECDSA_SHA_256: { family: "ec", hash: "sha256" },
  ED25519_SHA_512: { family: "ed25519", prehashed: false },
  ED25519_PH_SHA_512: { family: "ed25519", prehashed: true },
} as const satisfies Record<string, SigningSpec>;

export type SigningAlgorithm = keyof typeof SIGNING_SPECS;
export const SIGNING_ALGORITHMS = Object.keys(SIGNING_SPECS) as [SigningAlgorithm, ...SigningAlgorithm[]];

export const keySpecOf = (algorithm: string): KeySpec | undefined =>
  Object.hasOwn(KEY_SPECS, algorithm) ? KEY_SPECS[algorithm as KeyAlgorithm] : undefined;

/** The algorithm a key of `usage` gets when the request names none (Infisical's default for encryption keys). */
export const DEFAULT_ALGORITHM: Readonly<Record<KeyUsage, KeyAlgorithm | undefined>> = {
  "encrypt-decrypt": "aes-256-gcm",
  "sign-verify": undefined,
  "generate-verify-mac": undefined,
};

/** Why `algorithm` cannot serve `usage`, or undefined when it can. */
export function usageMismatch(usage: KeyUsage, algorithm: KeyAlgorithm): string | undefined {
  if (KEY_SPECS[algorithm].usage === usage) return undefined;
  const valid = KEY_ALGORITHMS.filter((a) => KEY_SPECS[a].usage === usage);
  return `Key usage ${usage} cannot use ${algorithm}; valid algorithms are ${valid.join(", ")}`;
}

/** The signing algorithms a key algorithm supports, in Infisical's order (none for keys that do not sign). */
export function signingAlgorithmsOf(algorithm: KeyAlgorithm): SigningAlgorithm[] {
  const spec: KeySpec = KEY_SPECS[algorithm];
  if (spec.usage !== "sign-verify") return [];
  return SIGNING_ALGORITHMS.filter((s) => SIGNING_SPECS[s].family === spec.kind);
}

/** Why a key of `algorithm` cannot sign with `signing` (with or without a digest), or undefined. */
export function signingMismatch(algorithm: KeyAlgorithm, signing: SigningAlgorithm, isDigest: boolean): string | undefined {
  if (!signingAlgorithmsOf(algorithm).includes(signing)) return `${algorithm} keys cannot be used with ${signing}`;
  const spec: SigningSpec = SIGNING_SPECS[signing];
  if (spec.family === "ed25519") {
    if (spec.prehashed && !isDigest) return `${signing} signs a SHA-512 digest: send the digest with isDigest true`;
    if (!spec.prehashed && isDigest) return `${signing} does not take a digest; use ED25519_PH_SHA_512 for pre-hashed input`;
  }
  // As Infisical: RSASSA-PSS is offered over messages only.
  if (spec.family === "rsa" && spec.padding === "pss" && isDigest) return "RSASSA-PSS does not support digested input";
  return undefined;
}

const DIGEST_BYTES: Readonly<Record<HashName, number>> = { sha256: 32, sha384: 48, sha512: 64 };

/** The length a digest sent with `isDigest` must have for `signing`. */
export function digestLengthOf(signing: SigningAlgorithm): number {
  const spec: SigningSpec = SIGNING_SPECS[signing];
  return DIGEST_BYTES[spec.family === "ed25519" ? "sha512" : spec.hash];
}
