import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM for the secrets the proxy keeps on disk (its CA key and its access token). Each
 * value is sealed for a named purpose, bound in as additional data, so a sealed CA key copied
 * into the access-token slot (or the reverse) fails to open instead of being misread.
 */
export interface Sealed {
  /** 12-byte nonce, base64. */
  iv: string;
  /** 16-byte GCM tag, base64. */
  tag: string;
  data: string;
}

export type SealPurpose = "ca-private-key" | "access-token";

export const SEALING_KEY_BYTES = 32;
const FORMAT = "strongroom-agent-proxy/v1";

export class Sealer {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== SEALING_KEY_BYTES) throw new Error(`the sealing key must be ${SEALING_KEY_BYTES} bytes, not ${key.length}`);
    this.#key = key;
  }

  seal(purpose: SealPurpose, plaintext: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(`${FORMAT}:${purpose}`));
    const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return { iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64"), data: data.toString("base64") };
  }

  open(purpose: SealPurpose, sealed: Sealed): string {
    const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(Buffer.from(`${FORMAT}:${purpose}`));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
    try {
      return Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()]).toString("utf8");
    } catch {
      throw new Error(`the stored ${purpose} cannot be decrypted: the data directory's key does not match its state file`);
    }
  }
}
