import type { Context } from "../kernel/context.js";
import { openText, packSealed, seal, unpackSealed } from "../crypto/aead.js";
import type { ProjectRow } from "../access/tables.js";

/**
 * Seals under the project's certificate data key (`kmsCertificateKeyId`). Each seal is bound to
 * what it belongs to (`ca:<id>`, `alert-channel:<id>`), so ciphertext moved onto another row does not open.
 */
export interface CertificateSealer {
  seal(plaintext: string, binding: string): string;
  open(packed: string, binding: string): string;
}

export async function certificateSealer(ctx: Context, project: ProjectRow): Promise<CertificateSealer> {
  const key = await ctx.keys.dataKey(ctx.storage, project.kmsCertificateKeyId);
  return {
    seal: (plaintext, binding) => packSealed(seal(key, plaintext, binding)),
    open: (packed, binding) => openText(key, unpackSealed(packed), binding),
  };
}
