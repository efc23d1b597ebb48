import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** An AES-256-GCM ciphertext with its random 96-bit IV and 128-bit tag, each base64. */
export interface Sealed {
  ciphertext: string;
  iv: string;
  tag: string;
}

/**
 * Fresh random values of `size` bytes each. One call to the CSPRNG costs more than what a small
 * value is used for (an encryption, a salt's hash), so values are cut from a larger random block;
 * each block is newly allocated and each slice handed out once, so none repeats and none changes
 * after it was used.
 */
export function randomSlices(size: number, perBlock = 256): () => Buffer {
  let block = Buffer.alloc(0);
  let offset = 0;
  return () => {
    if (offset === block.length) {
      block = randomBytes(size * perBlock);
      offset = 0;
    }
    const slice = block.subarray(offset, offset + size);
    offset += size;
    return slice;
  };
}

/** A fresh random 12-byte AES-GCM IV. */
export const nextIv = randomSlices(12);

export function seal(key: Buffer, plaintext: string | Buffer, aad?: string): Sealed {
  const iv = nextIv();
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  if (aad) cipher.setAAD(Buffer.from(aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { ciphertext: ciphertext.toString("base64"), iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64") };
}

/** Throws when the key is wrong or the data was altered: GCM never returns garbage. */
export function open(key: Buffer, sealed: Sealed, aad?: string): Buffer {
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"));
  if (aad) decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, "base64")), decipher.final()]);
}

export const openText = (key: Buffer, sealed: Sealed, aad?: string): string => open(key, sealed, aad).toString("utf8");

/** Compact single-string form `iv.tag.ciphertext` for columns that hold one sealed value. */
export const packSealed = (s: Sealed): string => `${s.iv}.${s.tag}.${s.ciphertext}`;

export function unpackSealed(packed: string): Sealed {
  const [iv, tag, ciphertext] = packed.split(".");
  if (iv === undefined || tag === undefined || ciphertext === undefined) throw new Error("malformed sealed value");
  return { iv, tag, ciphertext };
}
