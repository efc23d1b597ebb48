import type { Context } from "../context.js";
import { openText, packSealed, seal, unpackSealed, type Sealed } from "../crypto/aead.js";
import { hmacHex } from "../crypto/hash.js";
import type { Row } from "../storage/schema.js";
import type { Storage } from "../storage/table.js";

/**
 * A project's secret-manager data key in use. Every seal is bound (as AAD) to the secret it
 * belongs to, so ciphertext copied onto another secret's row fails to open.
 */
export interface ProjectCipher {
  seal(plaintext: string, secretId: string): string;
  open(packed: string, secretId: string): string;
  /** A fresh seal as separate base64 parts, for answers that show ciphertext. */
  sealParts(plaintext: string, secretId: string): Sealed;
  /** Finds a secret by name without storing the name: HMAC under a key derived from the data key. */
  blindIndex(name: string): string;
}

const aad = (secretId: string) => `secret:${secretId}`;

/** One per operation: blind indexes are remembered for its duration, as a batch asks for each name several times. */
export async function projectCipher(ctx: Context, storage: Storage, project: Row<"projects">): Promise<ProjectCipher> {
  const dataKey = await ctx.keys.dataKey(storage, project.kmsSecretManagerKeyId);
  const blindKey = await ctx.keys.blindIndexKey(storage, project.kmsSecretManagerKeyId);
  const indexes = new Map<string, string>();
  return {
    seal: (plaintext, secretId) => packSealed(seal(dataKey, plaintext, aad(secretId))),
    open: (packed, secretId) => openText(dataKey, unpackSealed(packed), aad(secretId)),
    sealParts: (plaintext, secretId) => seal(dataKey, plaintext, aad(secretId)),
    blindIndex(name) {
      let hash = indexes.get(name);
      if (hash === undefined) indexes.set(name, (hash = hmacHex(blindKey, name)));
      return hash;
    },
  };
}
