import { type KeyObject, generateKeyPair, sign } from "node:crypto";
import { KEY_ALGORITHM_SPECS, type KeyAlgorithm } from "../../packages/core/src/entries/x509.js";

/**
 * The floor: node:crypto generating the key and making the signature, nothing else. It signs
 * the way issueCertificate does (ECDSA inline, RSA on the libuv pool), so the gap between the
 * two is exactly the certificate work: exporting the new key (JWK), SPKI/PKCS #8 and
 * TBSCertificate DER, checks, PEM and fingerprint.
 */
export function rawKeygenAndSign(algorithm: KeyAlgorithm, hash: string, bytes: Buffer, caKey: KeyObject): Promise<void> {
  const spec = KEY_ALGORITHM_SPECS[algorithm];
  return new Promise((resolve, reject) => {
    const signed = (error: Error | null) => (error ? reject(error) : resolve());
    const generated = (error: Error | null) => {
      if (error) return reject(error);
      if (caKey.asymmetricKeyType !== "ec") return sign(hash, bytes, caKey, signed);
      try {
        sign(hash, bytes, caKey);
        resolve();
      } catch (signError) {
        reject(signError as Error);
      }
    };
    if (spec.family === "rsa") generateKeyPair("rsa", { modulusLength: spec.modulusLength, publicExponent: 0x10001 }, generated);
    else generateKeyPair("ec", { namedCurve: spec.namedCurve }, generated);
  });
}

