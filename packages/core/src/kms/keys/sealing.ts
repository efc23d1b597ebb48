import { open, packSealed, seal, unpackSealed } from "../../crypto/aead.js";
import type { Context } from "../../kernel/context.js";

/**
 * Key material is sealed (AES-256-GCM) under a data key of its project, bound to the key id and
 * version: material copied onto another key or version does not open. Which data key sealed it
 * is stored beside it, so a rewrap under a new data key finds every row to re-seal.
 */
export const materialBinding = (keyId: string, version: number): string => `cmek:${keyId}:v${version}`;

export async function sealMaterial(ctx: Context, dataKeyId: string, keyId: string, version: number, secret: Buffer): Promise<string> {
  return packSealed(seal(await ctx.keys.dataKey(ctx.storage, dataKeyId), secret, materialBinding(keyId, version)));
}

export async function openMaterial(ctx: Context, dataKeyId: string, keyId: string, version: number, sealed: string): Promise<Buffer> {
  return open(await ctx.keys.dataKey(ctx.storage, dataKeyId), unpackSealed(sealed), materialBinding(keyId, version));
}
