import type { Context } from "../kernel/context.js";
import { tablesOf } from "../storage/table.js";
import { caKeyBinding } from "./authorities/issuer.js";
import { channelSecretBinding } from "./alerts/channels.js";
import { sealerOver } from "./sealing.js";
import { certificateTables } from "./tables.js";

/**
 * The rewrap step of `rotate-data-keys` for the certificate manager: CA private keys and alert
 * webhook signing secrets of the project sealed under `fromKeyId` are sealed again under
 * `toKeyId`, in one transaction (a project has few). Rows already under `toKeyId` are left alone;
 * each update is conditional on the value read. Returns how many moved.
 */
export async function resealCertificateSecrets(ctx: Context, projectId: string, fromKeyId: string, toKeyId: string): Promise<number> {
  const from = await ctx.keys.dataKey(ctx.storage, fromKeyId);
  const to = await ctx.keys.dataKey(ctx.storage, toKeyId);
  const fresh = sealerOver([to]);
  const either = sealerOver([to, from]);
  /** The value sealed again under `to`, or undefined when it already is. */
  const moved = (packed: string, binding: string): string | undefined => {
    try {
      fresh.open(packed, binding);
      return undefined;
    } catch {
      return fresh.seal(either.open(packed, binding), binding);
    }
  };
  return ctx.withTransaction(async (tx) => {
    const t = tablesOf(tx.storage, certificateTables);
    let n = 0;
    for (const ca of await t.certificateAuthorities.find({ projectId }, { forUpdate: true })) {
      const sealedPrivateKey = moved(ca.sealedPrivateKey, caKeyBinding(ca.id));
      if (sealedPrivateKey) n += await t.certificateAuthorities.update({ id: ca.id, sealedPrivateKey: ca.sealedPrivateKey }, { sealedPrivateKey });
    }
    for (const channel of await t.certificateAlertChannels.find({ projectId, sealedSecret: { ne: null } }, { forUpdate: true })) {
      const sealedSecret = moved(channel.sealedSecret!, channelSecretBinding(channel.id));
      if (sealedSecret) n += await t.certificateAlertChannels.update({ id: channel.id, sealedSecret: channel.sealedSecret }, { sealedSecret });
    }
    return n;
  });
}
