import type { Context } from "../kernel/context.js";
import { openText, packSealed, seal, unpackSealed } from "../crypto/aead.js";
import { projectKeyRotation, readKeyIds } from "../access/key-rotation.js";
import type { ProjectRow } from "../access/tables.js";

/**
 * Seals under the project's certificate data key (`kmsCertificateKeyId`). Each seal is bound to
 * what it belongs to (`ca:<id>`, `alert-channel:<id>`), so ciphertext moved onto another row does
 * not open. During a data-key rotation, opening tries the rotation's other key too (GCM tells keys
 * apart), so rows the rotation has not reached yet still open.
 */
export interface CertificateSealer {
  seal(plaintext: string, binding: string): string;
  open(packed: string, binding: string): string;
}

export async function certificateSealer(ctx: Context, project: ProjectRow): Promise<CertificateSealer> {
  const ids = readKeyIds(project.kmsCertificateKeyId, await projectKeyRotation(ctx, project.id), (r) => [r.certToKeyId, r.certFromKeyId]);
  return sealerOver(await Promise.all(ids.map((id) => ctx.keys.dataKey(ctx.storage, id))));
}

/** Seals with the first key; opens with the first that fits. */
export function sealerOver(keys: readonly Buffer[]): CertificateSealer {
  return {
    seal: (plaintext, binding) => packSealed(seal(keys[0], plaintext, binding)),
    open(packed, binding) {
      const sealed = unpackSealed(packed);
      for (let i = 1; i < keys.length; i++) {
        try {
          return openText(keys[i - 1], sealed, binding);
        } catch {
          /* the next key, then */
        }
      }
      return openText(keys[keys.length - 1], sealed, binding);
    },
  };
}
