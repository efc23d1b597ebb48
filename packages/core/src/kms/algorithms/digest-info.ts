import type { HashName } from "./catalogue.js";

/**
 * The DER prefix of PKCS#1's DigestInfo for each hash (RFC 8017 §9.2, note 1): RSASSA-PKCS1-v1_5
 * over a digest the caller computed is the RSA private operation on `prefix || digest`.
 */
const PREFIXES: Readonly<Record<HashName, Buffer>> = {
  sha256: Buffer.from("3031300d060960864801650304020105000420", "hex"),
  sha384: Buffer.from("3041300d060960864801650304020205000430", "hex"),
  sha512: Buffer.from("3051300d060960864801650304020305000440", "hex"),
};

export const digestInfo = (hash: HashName, digest: Buffer): Buffer => Buffer.concat([PREFIXES[hash], digest]);
