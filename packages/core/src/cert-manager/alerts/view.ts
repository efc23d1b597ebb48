import type { AlertChannelRow, AlertRow } from "../tables.js";
import type { AlertChannelObject, AlertObject } from "./schemas.js";

/** The public view of a channel: a webhook says whether it signs, never with what. */
export function toChannelObject(row: AlertChannelRow): AlertChannelObject {
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

export function toAlertObject(row: AlertRow, channels: AlertChannelRow[]): AlertObject {
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
