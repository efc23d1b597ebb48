import { BoundedCache } from "../kernel/cache.js";
import { defineCache, type Context } from "../kernel/context.js";
import { openText, packSealed, seal, unpackSealed, type Sealed } from "../crypto/aead.js";
import { hmacHex } from "../crypto/hash.js";
import type { ProjectRow } from "../access/tables.js";

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

/** Ciphers by data key id: a key id always names the same key. */
const cipherCache = defineCache<ProjectCipher>({ name: "project-ciphers", capacity: 1_000 });
/** Blind indexes remembered per cipher: reads ask for the same few names again and again, batches for each name several times. */
const MAX_REMEMBERED_NAMES = 4_096;

export async function projectCipher(ctx: Context, project: ProjectRow): Promise<ProjectCipher> {
  const keyId = project.kmsSecretManagerKeyId;
  const ciphers = ctx.caches.get(cipherCache);
  const cached = ciphers.get(keyId);
  if (cached) return cached;
  const cipher = cipherOf(await ctx.keys.dataKey(ctx.storage, keyId), await ctx.keys.blindIndexKey(ctx.storage, keyId));
  ciphers.set(keyId, cipher);
  return cipher;
}

function cipherOf(dataKey: Buffer, blindKey: Buffer): ProjectCipher {
  const indexes = new BoundedCache<string>({ capacity: MAX_REMEMBERED_NAMES });
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
