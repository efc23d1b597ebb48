/**
 * SubjectPublicKeyInfo and PKCS #8 for freshly generated keys, written from the key's JWK.
 *
 * Why not `KeyObject.export({type: "spki" | "pkcs8"})`: on OpenSSL 3 those go through the
 * provider encoder framework and cost 150–400 µs per new key, several times the cost of
 * generating an EC key, while the DER around the JWK's numbers is fixed by RFC 5480, RFC 8017
 * and RFC 5915. Issuance tests read both outputs back with node:crypto and openssl.
 */
import type { JsonWebKey } from "node:crypto";
import { KEY_ALGORITHM_SPECS, type KeyAlgorithm } from "./algorithms.js";
import { type Der, der, toDer } from "./der-writer.js";
import { derToPem } from "./pem.js";

const RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
const EC_PUBLIC_KEY = "1.2.840.10045.2.1";
const CURVES = {
  prime256v1: { oid: "1.2.840.10045.3.1.7", bytes: 32 },
  secp384r1: { oid: "1.3.132.0.34", bytes: 48 },
} as const;

/** Big-endian unsigned → DER INTEGER content: no superfluous leading zeros, a zero added before a high bit. */
export function unsignedInteger(bytes: Uint8Array): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = Buffer.from(bytes.subarray(start));
  return trimmed[0]! & 0x80 ? Buffer.concat([Uint8Array.of(0), trimmed]) : trimmed;
}

function jwkBytes(jwk: JsonWebKey, field: keyof JsonWebKey): Buffer {
  const value = jwk[field];
  if (typeof value !== "string") throw new Error(`JWK has no ${field}`);
  return Buffer.from(value, "base64url");
}

/**
 * Writes a JWK value as exactly `length` bytes at `offset`. RFC 7518 §6.2 makes EC values
 * full-length, so the base64url usually lands in place; a short one is moved right and zero-padded.
 */
function writeFixed(target: Buffer, offset: number, length: number, jwk: JsonWebKey, field: keyof JsonWebKey): void {
  const value = jwk[field];
  if (typeof value !== "string") throw new Error(`JWK has no ${field}`);
  if (Math.floor((value.length * 3) / 4) > length) throw new Error(`JWK ${field} is longer than the curve allows`);
  const written = target.write(value, offset, length, "base64url");
  if (written < length) {
    target.copy(target, offset + length - written, offset, offset + written);
    target.fill(0, offset, offset + length - written);
  }
}

export interface EncodedKeyPair {
  subjectPublicKeyInfo: Buffer;
  /** The subjectPublicKey bits, which the key identifier hashes. */
  publicKey: Buffer;
  privateKeyPem: string;
}

function encodeRsa(jwk: JsonWebKey): EncodedKeyPair {
  const int = (field: keyof JsonWebKey) => der.integer(unsignedInteger(jwkBytes(jwk, field)));
  const algorithm = der.sequence([der.oid(RSA_ENCRYPTION), der.null()]);
  const publicKey = toDer(der.sequence([int("n"), int("e")]));
  const privateKey = der.sequence([der.smallInteger(0), int("n"), int("e"), int("d"), int("p"), int("q"), int("dp"), int("dq"), int("qi")]);
  return {
    subjectPublicKeyInfo: toDer(der.sequence([algorithm, der.bitString(publicKey)])),
    publicKey,
    privateKeyPem: pkcs8Pem(algorithm, privateKey),
  };
}

type Curve = (typeof CURVES)[keyof typeof CURVES];

function ecStructures(curve: Curve, d: Buffer, point: Buffer): { spki: Buffer; pkcs8: Buffer } {
  const algorithm = der.sequence([der.oid(EC_PUBLIC_KEY), der.oid(curve.oid)]);
  // RFC 5915 ECPrivateKey with the public point; the PKCS #8 wrapper names the curve.
  const privateKey = der.sequence([der.smallInteger(1), der.octetString(d), der.explicit(1, der.bitString(point))]);
  return {
    spki: toDer(der.sequence([algorithm, der.bitString(point)])),
    pkcs8: toDer(der.sequence([der.smallInteger(0), algorithm, der.octetString(privateKey)])),
  };
}

/**
 * An EC key's DER has the same length for every key on a curve, so everything but the key's
 * own bytes is a constant: laid out once per curve by ecStructures and reused.
 */
const EC_LAYOUTS = new Map(
  Object.values(CURVES).map((curve) => {
    const pointLength = 1 + 2 * curve.bytes;
    const { spki, pkcs8 } = ecStructures(curve, Buffer.alloc(curve.bytes), Buffer.alloc(pointLength));
    const pointField = der.explicit(1, der.bitString(Buffer.alloc(pointLength))).size - pointLength;
    const dEnd = pkcs8.length - pointLength - pointField;
    const layout = {
      spkiHead: spki.subarray(0, spki.length - pointLength),
      pkcs8Head: pkcs8.subarray(0, dEnd - curve.bytes),
      pkcs8Middle: pkcs8.subarray(dEnd, dEnd + pointField),
    };
    return [curve, layout] as const;
  }),
);

/** The key's numbers are written straight into copies of the curve's layout. */
function encodeEc(jwk: JsonWebKey, curve: Curve): EncodedKeyPair {
  const { spkiHead, pkcs8Head, pkcs8Middle } = EC_LAYOUTS.get(curve)!;
  const pointLength = 1 + 2 * curve.bytes;
  const spki = Buffer.allocUnsafe(spkiHead.length + pointLength);
  spkiHead.copy(spki);
  const point = spki.subarray(spkiHead.length);
  point[0] = 4; // uncompressed
  writeFixed(point, 1, curve.bytes, jwk, "x");
  writeFixed(point, 1 + curve.bytes, curve.bytes, jwk, "y");
  const pkcs8 = Buffer.allocUnsafe(pkcs8Head.length + curve.bytes + pkcs8Middle.length + pointLength);
  pkcs8Head.copy(pkcs8);
  writeFixed(pkcs8, pkcs8Head.length, curve.bytes, jwk, "d");
  pkcs8Middle.copy(pkcs8, pkcs8Head.length + curve.bytes);
  point.copy(pkcs8, pkcs8.length - pointLength);
  return { subjectPublicKeyInfo: spki, publicKey: point, privateKeyPem: derToPem(pkcs8, "PRIVATE KEY") };
}

function pkcs8Pem(algorithm: Der, privateKey: Der): string {
  return derToPem(toDer(der.sequence([der.smallInteger(0), algorithm, der.octetString(privateKey)])), "PRIVATE KEY");
}

export function encodeKeyPair(jwk: JsonWebKey, algorithm: KeyAlgorithm): EncodedKeyPair {
  const spec = KEY_ALGORITHM_SPECS[algorithm];
  return spec.family === "rsa" ? encodeRsa(jwk) : encodeEc(jwk, CURVES[spec.namedCurve]);
}
