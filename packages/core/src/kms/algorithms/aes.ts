import { createCipheriv, createDecipheriv } from "node:crypto";
import { nextIv } from "../../crypto/aead.js";
import { envelopeAad, packEnvelope, TAG_BYTES, unpackEnvelope } from "./envelope.js";

const cipherName = (key: Buffer) => (key.length === 16 ? "aes-128-gcm" : "aes-256-gcm");

/** Encrypts under one version of a key; the answer carries that version. */
export function encryptWith(key: Buffer, keyId: string, version: number, plaintext: Buffer): Buffer {
  const iv = nextIv();
  const cipher = createCipheriv(cipherName(key), key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(envelopeAad(keyId, version));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return packEnvelope({ version, iv, ciphertext, tag: cipher.getAuthTag() });
}

/** The key version a ciphertext names, or undefined when the bytes are no ciphertext of ours. */
export const versionOf = (ciphertext: Buffer): number | undefined => unpackEnvelope(ciphertext)?.version;

/** The plaintext, or undefined when the ciphertext was altered or made by another key. */
export function decryptWith(key: Buffer, keyId: string, ciphertext: Buffer): Buffer | undefined {
  const envelope = unpackEnvelope(ciphertext);
  if (!envelope) return undefined;
  try {
    const decipher = createDecipheriv(cipherName(key), key, envelope.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(envelopeAad(keyId, envelope.version));
    decipher.setAuthTag(envelope.tag);
    return Buffer.concat([decipher.update(envelope.ciphertext), decipher.final()]);
  } catch {
    return undefined;
  }
}
