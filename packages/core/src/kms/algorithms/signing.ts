import { constants, privateEncrypt, publicDecrypt, sign, timingSafeEqual, verify, type KeyObject } from "node:crypto";
import type * as edwards from "@noble/curves/abstract/edwards";
import type * as ed25519 from "@noble/curves/ed25519";
import type * as nist from "@noble/curves/nist";
import { lazyModule } from "../../kernel/lazy-module.js";
import { SIGNING_SPECS, type SigningAlgorithm, type SigningSpec } from "./catalogue.js";
import { digestInfo } from "./digest-info.js";

/**
 * Signatures as Infisical makes them: RSASSA-PSS with a salt as long as the hash, RSASSA-PKCS1-v1_5,
 * DER-encoded ECDSA, Ed25519 (RFC 8032; Ed25519ph over a SHA-512 digest). Messages are signed by
 * node:crypto (OpenSSL). node:crypto cannot sign a digest with ECDSA or Ed25519ph, so those two use
 * @noble/curves (audited, constant-time by design); PKCS#1 v1.5 over a digest is OpenSSL's raw RSA
 * operation on the DigestInfo. Callers have checked the pairing with `signingMismatch`.
 */

const edwardsModule = lazyModule<typeof edwards>("@noble/curves/abstract/edwards");
const ed25519Module = lazyModule<typeof ed25519>("@noble/curves/ed25519");
const nistModule = lazyModule<typeof nist>("@noble/curves/nist");

// Ed25519ph over a digest the caller made: noble's Ed25519ph with the SHA-512 step already done.
let ed25519phCurve: ReturnType<typeof edwards.twistedEdwards> | undefined;
const ed25519phOverDigest = () => {
  const { twistedEdwards } = edwardsModule();
  return (ed25519phCurve ??= twistedEdwards({
    ...(ed25519Module().ed25519ph.CURVE as Parameters<typeof twistedEdwards>[0]),
    prehash: (digest) => digest as Uint8Array,
  }));
};

const ecdsaCurve = (key: KeyObject) => (key.asymmetricKeyDetails?.namedCurve === "secp384r1" ? nistModule().p384 : nistModule().p256);

/** The private scalar (EC) or seed (Ed25519) noble takes. */
const rawPrivate = (privateKey: KeyObject): Buffer => Buffer.from(privateKey.export({ format: "jwk" }).d!, "base64url");

const rsaOptions = (spec: Extract<SigningSpec, { family: "rsa" }>, key: KeyObject) =>
  spec.padding === "pss"
    ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
    : { key, padding: constants.RSA_PKCS1_PADDING };

export function signData(algorithm: SigningAlgorithm, privateKey: KeyObject, data: Buffer, isDigest: boolean): Buffer {
  const spec: SigningSpec = SIGNING_SPECS[algorithm];
  if (spec.family === "ed25519") {
    return spec.prehashed ? Buffer.from(ed25519phOverDigest().sign(data, rawPrivate(privateKey))) : sign(null, data, privateKey);
  }
  if (spec.family === "rsa") {
    if (!isDigest) return sign(spec.hash, data, rsaOptions(spec, privateKey));
    return privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, digestInfo(spec.hash, data));
  }
  if (!isDigest) return sign(spec.hash, data, { key: privateKey, dsaEncoding: "der" });
  return Buffer.from(ecdsaCurve(privateKey).sign(data, rawPrivate(privateKey), { prehash: false }).toDERRawBytes());
}

/** False for a signature that does not verify, including one that is not even well-formed. */
export function verifyData(algorithm: SigningAlgorithm, publicKey: KeyObject, data: Buffer, signature: Buffer, isDigest: boolean): boolean {
  const spec: SigningSpec = SIGNING_SPECS[algorithm];
  try {
    if (spec.family === "ed25519") {
      if (!spec.prehashed) return verify(null, data, publicKey, signature);
      return ed25519phOverDigest().verify(signature, data, rawPublic(publicKey));
    }
    if (spec.family === "rsa") {
      if (!isDigest) return verify(spec.hash, data, rsaOptions(spec, publicKey), signature);
      const recovered = publicDecrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature);
      const expected = digestInfo(spec.hash, data);
      return recovered.length === expected.length && timingSafeEqual(recovered, expected);
    }
    if (!isDigest) return verify(spec.hash, data, { key: publicKey, dsaEncoding: "der" }, signature);
    return ecdsaCurve(publicKey).verify(signature, data, rawPublic(publicKey), { prehash: false, lowS: false });
  } catch {
    return false;
  }
}

/** The public point noble takes: uncompressed SEC1 for EC, the 32 raw bytes for Ed25519 (both the tail of the SPKI). */
function rawPublic(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: "jwk" });
  if (jwk.kty === "OKP") return Buffer.from(jwk.x!, "base64url");
  return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]);
}
