/** An alert's channels as stored: what replaces them when an alert is saved. */
import { BadRequestError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import type { CertificateSealer } from "../sealing.js";
import type { AlertChannelRow } from "../tables.js";
import type { AlertChannelInput } from "./schemas.js";

/** What a webhook's sealed signing secret is bound to: it opens on its own channel's row only. */
export const channelSecretBinding = (channelId: string): string => `alert-channel:${channelId}`;

/**
 * The rows that replace an alert's channels. An input naming an existing channel by `id` keeps
 * that id, its creation time and, unless a new one is sent, its webhook signing secret.
 */
export function channelRows(
  alert: { id: string; projectId: string },
  inputs: AlertChannelInput[],
  existing: AlertChannelRow[],
  sealer: CertificateSealer,
  now: string,
): AlertChannelRow[] {
  const known = new Map(existing.map((row) => [row.id, row]));
  const seen = new Set<string>();
  return inputs.map((input, position) => {
    const previous = input.id ? known.get(input.id) : undefined;
    if (input.id && !previous) throw new BadRequestError(`Channel ${input.id} is not a channel of this alert`);
    if (input.id && seen.has(input.id)) throw new BadRequestError(`Channel ${input.id} appears twice`);
    if (input.id) seen.add(input.id);
    const id = previous?.id ?? newId();
    let config: Record<string, unknown>;
    let sealedSecret: string | null = null;
    if (input.channelType === "email") {
      config = { recipients: [...new Set(input.config.recipients)] };
    } else {
      config = { url: input.config.url };
      if (input.config.signingSecret !== undefined) sealedSecret = sealer.seal(input.config.signingSecret, channelSecretBinding(id));
      else if (previous?.channelType === "webhook") sealedSecret = previous.sealedSecret;
    }
    return {
      id,
      alertId: alert.id,
      projectId: alert.projectId,
      position,
      channelType: input.channelType,
      config,
      sealedSecret,
      enabled: input.enabled,
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
  });
}
