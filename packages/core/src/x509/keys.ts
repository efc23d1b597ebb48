/**
 * Fresh key pairs from native node:crypto (OpenSSL's generators), handed back as a JWK, the form
 * key-encoding.ts writes SPKI and PKCS #8 from.
 *
 * EC keys come from `createECDH(curve).generateKeys()`: the same OpenSSL EC key generation as
 * `generateKeyPair("ec")`, ~20 µs on the event loop with the raw scalar and point in hand, where
 * `generateKeyPair` with a JWK encoding costs ~50 µs of the event loop (setting up the job and
 * encoding its result there) plus the pool thread's work, and SEC1/SPKI/PKCS #8 encodings more.
 * RSA keys (tens of milliseconds) stay on the libuv pool.
 */
import { type JsonWebKey, createECDH, generateKeyPair } from "node:crypto";
import { KEY_ALGORITHM_SPECS, type KeyAlgorithm } from "./algorithms.js";

// @types/node lists only the pem/der encodings; node:crypto accepts "jwk" here since Node 15.9.
// Only the private half is encoded: its JWK carries the public parameters too.
type JwkKeyGen = (type: "rsa", options: object, callback: (error: Error | null, publicKey: unknown, privateKey: JsonWebKey) => void) => void;
const generateJwkPair = generateKeyPair as unknown as JwkKeyGen;

const EC_CURVES = {
  prime256v1: { crv: "P-256", bytes: 32 },
  secp384r1: { crv: "P-384", bytes: 48 },
} as const;

/** `bytes` as exactly `length` bytes: ECDH hands the private scalar over without its leading zeros. */
function fixedLength(bytes: Buffer, length: number): Buffer {
  if (bytes.length === length) return bytes;
  const padded = Buffer.alloc(length);
  bytes.copy(padded, length - bytes.length);
  return padded;
}

/** An EC key pair as the private JWK, values full-length as RFC 7518 §6.2 has them. */
export function generateEcJwk(namedCurve: keyof typeof EC_CURVES): JsonWebKey {
  const { crv, bytes } = EC_CURVES[namedCurve];
  const ecdh = createECDH(namedCurve);
  // Uncompressed point: 04 ‖ x ‖ y, each coordinate full-length.
  const point = ecdh.generateKeys();
  return {
    kty: "EC",
    crv,
    x: point.subarray(1, 1 + bytes).toString("base64url"),
    y: point.subarray(1 + bytes).toString("base64url"),
    d: fixedLength(ecdh.getPrivateKey(), bytes).toString("base64url"),
  };
}

/** The private JWK, which carries the public parameters too. */
export function generateKey(algorithm: KeyAlgorithm): Promise<JsonWebKey> {
  const spec = KEY_ALGORITHM_SPECS[algorithm];
  if (spec.family === "ec") return Promise.resolve(generateEcJwk(spec.namedCurve));
  const options = { modulusLength: spec.modulusLength, publicExponent: 0x10001, privateKeyEncoding: { format: "jwk" } };
  return new Promise((resolve, reject) => {
    generateJwkPair("rsa", options, (error, _publicKey, privateKey) => (error ? reject(error) : resolve(privateKey)));
  });
}
