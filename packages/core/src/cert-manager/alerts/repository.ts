import { defineRepository } from "../../kernel/context.js";
import { UniqueViolationError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf, type Where } from "../../storage/table.js";
import { findPage, type Page, type PageRequest } from "../pages.js";
import {
  certificateAlertChannels,
  certificateAlertNotifications,
  certificateAlerts,
  type AlertChannelRow,
  type AlertNotificationRow,
  type AlertRow,
} from "../tables.js";

const alertTables = { certificateAlerts, certificateAlertChannels, certificateAlertNotifications };

/** What one notification is about: an alert, a certificate, a channel and a period (`once` or a UTC day). */
export type NotificationKey = Pick<AlertNotificationRow, "alertId" | "certificateId" | "channelId" | "period">;

/** Alerts with their channels, and the notifications sent for them. */
export const alertRepository = defineRepository("certificate-alerts", (ctx) => {
  const t = tablesOf(ctx.storage, alertTables);
  const inTransaction = <T>(fn: (tx: typeof t) => Promise<T>): Promise<T> => ctx.withTransaction((tx) => fn(tablesOf(tx.storage, alertTables)));
  return {
    get: (id: string): Promise<AlertRow | undefined> => t.certificateAlerts.get(id),
    byName: (projectId: string, name: string): Promise<AlertRow | undefined> => t.certificateAlerts.findOne({ projectId, name }),
    /** Oldest first; `search` matches the name, case-insensitively. */
    page(projectId: string, search: string | undefined, page: PageRequest): Promise<Page<AlertRow>> {
      const where: Where<AlertRow> = { projectId, ...(search ? { name: { contains: search } } : {}) };
      return findPage(t.certificateAlerts, where, [["createdAt", "asc"], ["id", "asc"]], page);
    },
    /** Every enabled alert of every project, oldest first: what the evaluation job runs. */
    enabled: (): Promise<AlertRow[]> => t.certificateAlerts.find({ enabled: true }, { orderBy: [["createdAt", "asc"]] }),
    /** Channels of each alert, in their defined order. */
    async channelsOf(alertIds: readonly string[]): Promise<Map<string, AlertChannelRow[]>> {
      const byAlert = new Map(alertIds.map((id) => [id, [] as AlertChannelRow[]]));
      if (alertIds.length === 0) return byAlert;
      const rows = await t.certificateAlertChannels.find({ alertId: { in: [...alertIds] } }, { orderBy: [["position", "asc"]] });
      for (const row of rows) byAlert.get(row.alertId)?.push(row);
      return byAlert;
    },
    create: (alert: AlertRow, channels: AlertChannelRow[]): Promise<void> =>
      inTransaction(async (tx) => {
        await tx.certificateAlerts.insert(alert);
        await tx.certificateAlertChannels.insertMany(channels);
      }),
    /** Patches the alert and, when given, replaces its channels whole. */
    update: (id: string, patch: Partial<AlertRow>, channels: AlertChannelRow[] | undefined): Promise<void> =>
      inTransaction(async (tx) => {
        await tx.certificateAlerts.update({ id }, patch);
        if (!channels) return;
        await tx.certificateAlertChannels.delete({ alertId: id });
        await tx.certificateAlertChannels.insertMany(channels);
      }),
    /** Deletes the alert, its channels and its notification history. */
    remove: (id: string): Promise<void> =>
      inTransaction(async (tx) => {
        await tx.certificateAlertNotifications.delete({ alertId: id });
        await tx.certificateAlertChannels.delete({ alertId: id });
        await tx.certificateAlerts.delete({ id });
      }),
    /**
     * Claims a notification for sending: the row id when this run may send it, or null when it was
     * sent or is being sent. A new notification is claimed by inserting its row (unique per key); a
     * `retryable` one by one conditional update on the status and attempts it was read with. Of two
     * runs or nodes claiming at once, exactly one wins.
     */
    async claimNotification(key: NotificationKey, now: Date, retryable: (row: AlertNotificationRow) => boolean): Promise<string | null> {
      const table = t.certificateAlertNotifications;
      const at = now.toISOString();
      const existing = await table.findOne(key);
      if (!existing) {
        const id = newId();
        try {
          await table.insert({ id, ...key, status: "sending", attempts: 1, error: null, sentAt: null, createdAt: at, updatedAt: at });
          return id;
        } catch (error) {
          if (error instanceof UniqueViolationError) return null; // claimed by another run a moment ago
          throw error;
        }
      }
      if (!retryable(existing)) return null;
      const won = await table.update(
        { id: existing.id, status: existing.status, attempts: existing.attempts },
        { status: "sending", attempts: existing.attempts + 1, updatedAt: at },
      );
      return won === 1 ? existing.id : null;
    },
    /** Records how the delivery of these claimed notifications went. */
    settleNotifications: (ids: readonly string[], outcome: Partial<AlertNotificationRow>): Promise<number> =>
      t.certificateAlertNotifications.update({ id: { in: [...ids] } }, outcome),
  };
});
