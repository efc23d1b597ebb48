import { openSealed, seal } from "@strongroom/core/agent";

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

  // Core's AES-256-GCM; the file keeps its own field names (`data` for the ciphertext), so data
  // directories written before keep opening.
  seal(purpose: SealPurpose, plaintext: string): Sealed {
    const { iv, tag, ciphertext } = seal(this.#key, plaintext, `${FORMAT}:${purpose}`);
    return { iv, tag, data: ciphertext };
  }

  open(purpose: SealPurpose, sealed: Sealed): string {
    try {
      return openSealed(this.#key, { iv: sealed.iv, tag: sealed.tag, ciphertext: sealed.data }, `${FORMAT}:${purpose}`).toString("utf8");
    } catch {
      throw new Error(`the stored ${purpose} cannot be decrypted: the data directory's key does not match its state file`);
    }
  }
}
