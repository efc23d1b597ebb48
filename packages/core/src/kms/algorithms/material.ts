import { createPrivateKey, createPublicKey, generateKeyPair, randomBytes, type KeyObject } from "node:crypto";
import { promisify } from "node:util";
import { KEY_SPECS, type HashName, type KeyAlgorithm, type KeySpec } from "./catalogue.js";

const generatePair = promisify(generateKeyPair);

/** What a new key version is made of: the secret to seal, and for asymmetric keys the public key to publish. */
export interface GeneratedMaterial {
  /** Raw key bytes (AES, HMAC) or the private key as PKCS#8 DER. */
  readonly secret: Buffer;
  readonly publicKeyPem: string | null;
}

/** Fresh material for `algorithm`. Key pairs are generated off the event loop (RSA-4096 takes a while). */
export async function generateMaterial(algorithm: KeyAlgorithm): Promise<GeneratedMaterial> {
  const spec: KeySpec = KEY_SPECS[algorithm];
  switch (spec.kind) {
    case "aes":
    case "hmac":
      return { secret: randomBytes(spec.keyBytes), publicKeyPem: null };
    case "rsa":
      return pairOf(await generatePair("rsa", { modulusLength: spec.modulusLength }));
    case "ec":
      return pairOf(await generatePair("ec", { namedCurve: spec.namedCurve }));
    case "ed25519":
      return pairOf(await generatePair("ed25519"));
  }
}

function pairOf(pair: { privateKey: KeyObject; publicKey: KeyObject }): GeneratedMaterial {
  return {
    secret: pair.privateKey.export({ type: "pkcs8", format: "der" }),
    publicKeyPem: pair.publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

/** A key version opened for use: parsed once, then kept in the instance's cache. */
export type UsableKey =
  | { readonly kind: "aes"; readonly key: Buffer }
  | { readonly kind: "hmac"; readonly hash: HashName; readonly key: Buffer }
  | { readonly kind: "asymmetric"; readonly privateKey: KeyObject; readonly publicKey: KeyObject };

export function usableKey(algorithm: KeyAlgorithm, secret: Buffer): UsableKey {
  const spec: KeySpec = KEY_SPECS[algorithm];
  if (spec.kind === "aes") return { kind: "aes", key: secret };
  if (spec.kind === "hmac") return { kind: "hmac", hash: spec.hash, key: secret };
  const privateKey = createPrivateKey({ key: secret, format: "der", type: "pkcs8" });
  return { kind: "asymmetric", privateKey, publicKey: createPublicKey(privateKey) };
}
