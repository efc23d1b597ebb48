import { BadRequestError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import type { CertManagerRow } from "../tables.js";
import type { AppStorage as Storage } from "../../schema.js";
import type { AlertChannelInput, AlertChannelObject, AlertObject } from "./schemas.js";
import type { CertificateSealer } from "../sealing.js";

export type AlertRow = CertManagerRow<"certificateAlerts">;
export type ChannelRow = CertManagerRow<"certificateAlertChannels">;

export const channelSecretBinding = (channelId: string): string => `alert-channel:${channelId}`;

/** The public view of a channel: a webhook says whether it signs, never with what. */
export function toChannelObject(row: ChannelRow): AlertChannelObject {
  const config = row.channelType === "webhook" ? { ...row.config, hasSigningSecret: row.sealedSecret !== null } : { ...row.config };
  return {
    id: row.id,
    channelType: row.channelType as AlertChannelObject["channelType"],
    config,
    enabled: row.enabled,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function toAlertObject(row: AlertRow, channels: ChannelRow[]): AlertObject {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    description: row.description,
    alertBefore: row.alertBefore,
    eventType: row.eventType as AlertObject["eventType"],
    filters: row.filters as AlertObject["filters"],
    enabled: row.enabled,
    notificationConfig: { enableDailyNotification: row.enableDailyNotification },
    channels: channels.map(toChannelObject),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Channels of each alert, in their defined order. */
export async function channelsOf(storage: Storage, alertIds: string[]): Promise<Map<string, ChannelRow[]>> {
  const byAlert = new Map(alertIds.map((id) => [id, [] as ChannelRow[]]));
  if (alertIds.length === 0) return byAlert;
  const rows = await storage.tables.certificateAlertChannels.find({ alertId: { in: alertIds } }, { orderBy: [["position", "asc"]] });
  for (const row of rows) byAlert.get(row.alertId)?.push(row);
  return byAlert;
}

/**
 * The rows that replace an alert's channels. An input naming an existing channel by `id` keeps
 * that id, its creation time and, unless a new one is sent, its webhook signing secret.
 */
export function channelRows(
  alert: { id: string; projectId: string },
  inputs: AlertChannelInput[],
  existing: ChannelRow[],
  sealer: CertificateSealer,
  now: string,
): ChannelRow[] {
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

/** Replaces an alert's channels in the caller's transaction. */
export async function replaceChannels(tx: Storage, alertId: string, rows: ChannelRow[]): Promise<void> {
  await tx.tables.certificateAlertChannels.delete({ alertId });
  await tx.tables.certificateAlertChannels.insertMany(rows);
}
