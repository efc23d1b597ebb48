/**
 * Evaluating an alert: find the project's certificates that expire within its window, keep those
 * its filters select, and notify each enabled channel about the ones it was not yet told of in
 * this period (`once`, or the UTC day when daily notifications are on). Each notification row is
 * claimed before sending, so two runs or two nodes never send the same one.
 */
import type { Context } from "../../kernel/context.js";
import { UniqueViolationError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import type { CertManagerRow } from "../tables.js";
import type { AccessRow } from "../../access/tables.js";
import { postWebhook, sendEmail } from "../node/alert-delivery.js";
import { matchesFilters } from "./filters.js";
import { type DueCertificate, emailMessage, webhookBody } from "./message.js";
import { type AlertRow, type ChannelRow, channelSecretBinding, channelsOf } from "./repository.js";
import type { AlertFilter, NotificationResult } from "./schemas.js";
import { alertWindowEnd } from "../durations.js";
import { certificateSealer } from "../sealing.js";

type NotificationRow = CertManagerRow<"certificateAlertNotifications">;

/** Deliveries per notification before it is given up. */
export const MAX_DELIVERY_ATTEMPTS = 5;
/** A notification still `sending` after this is taken to have died with its node. */
const STALE_SENDING_MS = 60 * 60 * 1000;
const MAX_ERROR_LENGTH = 500;

export interface Evaluation {
  windowEnd: Date;
  dueCertificates: number;
  notifications: NotificationResult[];
}

/** Certificates of the project expiring after now and by the window's end that the filters select. */
async function dueCertificates(ctx: Context, alert: AlertRow, now: Date, windowEnd: Date): Promise<DueCertificate[]> {
  const rows = (await ctx.storage.tables.certificates.find({ projectId: alert.projectId, notAfter: { lte: windowEnd.toISOString() } }, { orderBy: [["notAfter", "asc"]] }))
    .filter((row) => Date.parse(row.notAfter) > now.getTime());
  const profileIds = [...new Set(rows.map((row) => row.profileId).filter((id): id is string => id !== null))];
  const profiles = profileIds.length ? await ctx.storage.tables.certificateProfiles.find({ id: { in: profileIds } }) : [];
  const slugs = new Map(profiles.map((profile) => [profile.id, profile.slug]));
  return rows
    .map((row) => ({ row, profileName: (row.profileId && slugs.get(row.profileId)) || null }))
    .filter(({ row, profileName }) =>
      matchesFilters(alert.filters as AlertFilter[], {
        profileName,
        commonName: row.commonName,
        subjectAltNames: row.subjectAltNames.map((san) => san.value),
        isCA: row.isCA,
      }),
    );
}

const retryable = (row: NotificationRow, now: Date): boolean =>
  row.attempts < MAX_DELIVERY_ATTEMPTS &&
  (row.status === "failed" || (row.status === "sending" && now.getTime() - Date.parse(row.updatedAt) > STALE_SENDING_MS));

/** The notification's row id when this run may send it, or null when it was sent (or is being sent) already. */
async function claimNotification(ctx: Context, key: Pick<NotificationRow, "alertId" | "certificateId" | "channelId" | "period">, now: Date): Promise<string | null> {
  const table = ctx.storage.tables.certificateAlertNotifications;
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
  if (!retryable(existing, now)) return null;
  const won = await table.update(
    { id: existing.id, status: existing.status, attempts: existing.attempts },
    { status: "sending", attempts: existing.attempts + 1, updatedAt: at },
  );
  return won === 1 ? existing.id : null;
}

async function deliver(ctx: Context, alert: AlertRow, channel: ChannelRow, certificates: DueCertificate[], project: AccessRow<"projects">): Promise<void> {
  if (channel.channelType === "email") {
    await sendEmail(ctx.config, channel.config.recipients as string[], emailMessage(alert, certificates));
    return;
  }
  const secret = channel.sealedSecret === null ? null : (await certificateSealer(ctx, project)).open(channel.sealedSecret, channelSecretBinding(channel.id));
  await postWebhook(ctx.config, channel.config.url as string, webhookBody(alert, certificates, ctx.clock.now()), secret);
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);

/** Evaluates one alert now. Delivery failures are recorded on the notifications, not thrown. */
export async function evaluateAlert(ctx: Context, alert: AlertRow): Promise<Evaluation> {
  const now = ctx.clock.now();
  const windowEnd = alertWindowEnd(alert.alertBefore, now);
  // Only expiration alerts can be saved (see alert-operations.ts); anything else has nothing to evaluate.
  if (!alert.enabled || alert.eventType !== "expiration") return { windowEnd, dueCertificates: 0, notifications: [] };
  const due = await dueCertificates(ctx, alert, now, windowEnd);
  if (due.length === 0) return { windowEnd, dueCertificates: 0, notifications: [] };
  const project = await ctx.storage.tables.projects.get(alert.projectId);
  if (!project) return { windowEnd, dueCertificates: 0, notifications: [] };
  const channels = ((await channelsOf(ctx.storage, [alert.id])).get(alert.id) ?? []).filter((channel) => channel.enabled);
  const period = alert.enableDailyNotification ? now.toISOString().slice(0, 10) : "once";
  const notifications: NotificationResult[] = [];
  for (const channel of channels) {
    const claimed: { id: string; certificate: DueCertificate }[] = [];
    for (const certificate of due) {
      const id = await claimNotification(ctx, { alertId: alert.id, certificateId: certificate.row.id, channelId: channel.id, period }, now);
      if (id) claimed.push({ id, certificate });
    }
    if (claimed.length === 0) continue;
    let failure: string | null = null;
    try {
      await deliver(ctx, alert, channel, claimed.map((c) => c.certificate), project);
    } catch (error) {
      failure = errorText(error);
    }
    const done = ctx.clock.now().toISOString();
    await ctx.storage.tables.certificateAlertNotifications.update(
      { id: { in: claimed.map((c) => c.id) } },
      failure === null ? { status: "sent", error: null, sentAt: done, updatedAt: done } : { status: "failed", error: failure, updatedAt: done },
    );
    for (const { certificate } of claimed) {
      notifications.push({
        certificateId: certificate.row.id,
        channelId: channel.id,
        channelType: channel.channelType as NotificationResult["channelType"],
        status: failure === null ? "sent" : "failed",
        error: failure,
      });
    }
  }
  return { windowEnd, dueCertificates: due.length, notifications };
}
