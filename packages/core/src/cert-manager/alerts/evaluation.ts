/**
 * Evaluating an alert: find the project's certificates that expire within its window, keep those
 * its filters select, and notify each enabled channel about the ones it was not yet told of in
 * this period (`once`, or the UTC day when daily notifications are on). Each notification row is
 * claimed before sending, so two runs or two nodes never send the same one.
 */
import { accessRepository } from "../../access/repository.js";
import type { ProjectRow } from "../../access/tables.js";
import { DEFAULT_LEASE_MS } from "../../jobs/lease.js";
import type { Context } from "../../kernel/context.js";
import { certificateRepository } from "../certificates/repository.js";
import { alertWindowEnd } from "../durations.js";
import { certManagerPorts } from "../io.js";
import { profileRepository } from "../profiles/repository.js";
import { certificateSealer } from "../sealing.js";
import type { AlertChannelRow, AlertNotificationRow, AlertRow } from "../tables.js";
import { channelSecretBinding } from "./channels.js";
import { matchesFilters } from "./filters.js";
import { type DueCertificate, emailMessage, webhookBody, webhookRequest } from "./message.js";
import { alertRepository } from "./repository.js";
import type { AlertFilter, NotificationResult } from "./schemas.js";

/** Deliveries per notification before it is given up. */
export const MAX_DELIVERY_ATTEMPTS = 5;
/**
 * A notification still `sending` after this is taken to have died with its node, and is sent
 * again (at least once: it may arrive twice). A lease: the evaluation job that takes a dead node's
 * period over runs no sooner, and a live node is done with its sends (each bounded by its
 * channel's timeout) well within it.
 */
const STALE_SENDING_MS = DEFAULT_LEASE_MS;
const MAX_ERROR_LENGTH = 500;

export interface Evaluation {
  windowEnd: Date;
  dueCertificates: number;
  notifications: NotificationResult[];
}

/** Certificates of the project expiring after now and by the window's end that the filters select. */
async function dueCertificates(ctx: Context, alert: AlertRow, now: Date, windowEnd: Date): Promise<DueCertificate[]> {
  const rows = (await ctx.repo(certificateRepository).expiringBy(alert.projectId, windowEnd)).filter((row) => Date.parse(row.notAfter) > now.getTime());
  const slugs = await ctx.repo(profileRepository).slugs([...new Set(rows.map((row) => row.profileId).filter((id): id is string => id !== null))]);
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

/** A failed delivery, or one left `sending` by a node that died, is tried again until the attempts run out. */
const retryable = (now: Date) => (row: AlertNotificationRow): boolean =>
  row.attempts < MAX_DELIVERY_ATTEMPTS &&
  (row.status === "failed" || (row.status === "sending" && now.getTime() - Date.parse(row.updatedAt) > STALE_SENDING_MS));

async function deliver(ctx: Context, alert: AlertRow, channel: AlertChannelRow, certificates: DueCertificate[], project: ProjectRow): Promise<void> {
  const ports = certManagerPorts(ctx);
  if (channel.channelType === "email") {
    await ports.mail.send(emailMessage(alert, channel.config.recipients as string[], certificates));
    return;
  }
  const secret = channel.sealedSecret === null ? null : (await certificateSealer(ctx, project)).open(channel.sealedSecret, channelSecretBinding(channel.id));
  await ports.webhooks.post(webhookRequest(channel.config.url as string, webhookBody(alert, certificates, ctx.clock.now()), secret));
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);

/** Evaluates one alert now. Delivery failures are recorded on the notifications, not thrown. */
export async function evaluateAlert(ctx: Context, alert: AlertRow): Promise<Evaluation> {
  const now = ctx.clock.now();
  const windowEnd = alertWindowEnd(alert.alertBefore, now);
  // Only expiration alerts can be saved (see operations.ts); anything else has nothing to evaluate.
  if (!alert.enabled || alert.eventType !== "expiration") return { windowEnd, dueCertificates: 0, notifications: [] };
  const due = await dueCertificates(ctx, alert, now, windowEnd);
  if (due.length === 0) return { windowEnd, dueCertificates: 0, notifications: [] };
  const project = await ctx.repo(accessRepository).projectById(alert.projectId);
  if (!project) return { windowEnd, dueCertificates: 0, notifications: [] };
  const alerts = ctx.repo(alertRepository);
  const channels = ((await alerts.channelsOf([alert.id])).get(alert.id) ?? []).filter((channel) => channel.enabled);
  const period = alert.enableDailyNotification ? now.toISOString().slice(0, 10) : "once";
  const notifications: NotificationResult[] = [];
  for (const channel of channels) {
    const claimed: { id: string; certificate: DueCertificate }[] = [];
    for (const certificate of due) {
      const key = { alertId: alert.id, certificateId: certificate.row.id, channelId: channel.id, period };
      const id = await alerts.claimNotification(key, now, retryable(now));
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
    await alerts.settleNotifications(
      claimed.map((c) => c.id),
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
