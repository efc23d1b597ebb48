/**
 * Fresh key pairs from native node:crypto (OpenSSL's generator, on the libuv pool), handed back
 * as a JWK. Of the forms node:crypto can hand a new key over in, the JWK is the cheapest: about
 * 10 µs on top of generating an EC key, where SEC1 costs ~35 µs and SPKI/PKCS #8 (OpenSSL 3's
 * encoder framework) 150–400 µs, several times the generation itself.
 */
import { type JsonWebKey, generateKeyPair } from "node:crypto";
import { KEY_ALGORITHM_SPECS, type KeyAlgorithm } from "./algorithms.js";

// @types/node lists only the pem/der encodings; node:crypto accepts "jwk" here since Node 15.9.
// Only the private half is encoded: its JWK carries the public parameters too.
type JwkKeyGen = (type: "rsa" | "ec", options: object, callback: (error: Error | null, publicKey: unknown, privateKey: JsonWebKey) => void) => void;
const generateJwkPair = generateKeyPair as unknown as JwkKeyGen;
const JWK = { privateKeyEncoding: { format: "jwk" } };

/** The private JWK, which carries the public parameters too. */
export function generateKey(algorithm: KeyAlgorithm): Promise<JsonWebKey> {
  const spec = KEY_ALGORITHM_SPECS[algorithm];
  const options =
    spec.family === "rsa" ? { modulusLength: spec.modulusLength, publicExponent: 0x10001, ...JWK } : { namedCurve: spec.namedCurve, ...JWK };
  return new Promise((resolve, reject) => {
    generateJwkPair(spec.family, options, (error, _publicKey, privateKey) => (error ? reject(error) : resolve(privateKey)));
  });
}
