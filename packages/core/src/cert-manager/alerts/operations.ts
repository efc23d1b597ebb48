import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import type { Where } from "../../storage/table.js";
import { evaluateAlert } from "./evaluation.js";
import { type AlertRow, channelRows, channelsOf, replaceChannels, toAlertObject } from "./repository.js";
import {
  type AlertChannelInput,
  alertListOutput,
  alertOutput,
  alertRefInput,
  createAlertInput,
  evaluationOutput,
  listAlertsInput,
  updateAlertInput,
} from "./schemas.js";
import { openCertificateProject, openCertificateRecord } from "../project-scope.js";
import { blankToUndefined } from "../query-fields.js";
import { certificateSealer } from "../sealing.js";
import { assertWebhookUrlAllowed } from "./webhook-target.js";

/**
 * Only expiration alerts are accepted: Strongroom never renews or revokes, and whoever issues a
 * certificate already has the answer. An alert that could never fire is refused rather than kept.
 */
function assertSupportedEvent(eventType: string | undefined): void {
  if (eventType !== undefined && eventType !== "expiration") {
    throw new BadRequestError(`Alerts on ${eventType} events are not supported; use eventType expiration`);
  }
}

function checkChannels(ctx: Context, channels: AlertChannelInput[] | undefined): void {
  for (const channel of channels ?? []) {
    if (channel.channelType === "webhook") assertWebhookUrlAllowed(channel.config.url, ctx.config.allowPrivateTargets);
  }
}

async function assertNameFree(ctx: Context, projectId: string, name: string): Promise<void> {
  if (await ctx.storage.tables.certificateAlerts.findOne({ projectId, name })) {
    throw new BadRequestError(`An alert named '${name}' already exists in this project`);
  }
}

async function openAlert(ctx: Context, actor: Actor, alertId: string, action: "read" | "edit" | "delete") {
  const found = await ctx.storage.tables.certificateAlerts.get(alertId);
  return openCertificateRecord(ctx, actor, found, "Alert", "pki-alerts", action);
}

async function present(ctx: Context, alert: AlertRow) {
  const channels = await channelsOf(ctx.storage, [alert.id]);
  return { alert: toAlertObject(alert, channels.get(alert.id) ?? []) };
}

export const alertOperations = {
  create: defineOperation({
    name: "create",
    summary:
      "Create a certificate alert: certificates of the project expiring within `alertBefore` that pass the filters are notified " +
      "on each channel once (or daily). A webhook's signing secret is stored sealed and never returned.",
    audience: "principal",
    input: createAlertInput,
    output: alertOutput,
    async run(ctx, actor, input) {
      const { project } = await openCertificateProject(ctx, actor, input.projectId, "pki-alerts", "create");
      assertSupportedEvent(input.eventType);
      checkChannels(ctx, input.channels);
      await assertNameFree(ctx, project.id, input.name);
      const now = ctx.clock.now().toISOString();
      const row: AlertRow = {
        id: newId(),
        projectId: project.id,
        name: input.name,
        description: input.description,
        eventType: input.eventType,
        alertBefore: input.alertBefore,
        filters: input.filters,
        enabled: input.enabled,
        enableDailyNotification: input.notificationConfig.enableDailyNotification,
        createdAt: now,
        updatedAt: now,
      };
      const channels = channelRows(row, input.channels, [], await certificateSealer(ctx, project), now);
      await ctx.storage.transaction(async (tx) => {
        await tx.tables.certificateAlerts.insert(row);
        await tx.tables.certificateAlertChannels.insertMany(channels);
      });
      return { alert: toAlertObject(row, channels) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the alerts of a project, oldest first; `search` matches the name, case-insensitively",
    audience: "principal",
    input: listAlertsInput,
    output: alertListOutput,
    async run(ctx, actor, input) {
      const { project } = await openCertificateProject(ctx, actor, input.projectId, "pki-alerts", "read");
      const search = blankToUndefined(input.search);
      const where: Where<AlertRow> = { projectId: project.id, ...(search ? { name: { contains: search } } : {}) };
      const table = ctx.storage.tables.certificateAlerts;
      const [rows, totalCount] = await Promise.all([
        table.find(where, { orderBy: [["createdAt", "asc"], ["id", "asc"]], offset: input.offset, limit: input.limit }),
        table.count(where),
      ]);
      const channels = await channelsOf(ctx.storage, rows.map((row) => row.id));
      return { alerts: rows.map((row) => toAlertObject(row, channels.get(row.id) ?? [])), totalCount };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get an alert and its channels",
    audience: "principal",
    input: alertRefInput,
    output: alertOutput,
    async run(ctx, actor, input) {
      const { row } = await openAlert(ctx, actor, input.alertId, "read");
      return present(ctx, row);
    },
  }),

  update: defineOperation({
    name: "update",
    summary:
      "Update an alert. Omitted fields keep their value; `channels` replaces the whole collection (a channel sent with its `id` " +
      "keeps its id and, unless a new one is sent, its webhook signing secret).",
    audience: "principal",
    input: updateAlertInput,
    output: alertOutput,
    async run(ctx, actor, input) {
      const { row, access } = await openAlert(ctx, actor, input.alertId, "edit");
      assertSupportedEvent(input.eventType);
      checkChannels(ctx, input.channels);
      if (input.name !== undefined && input.name !== row.name) await assertNameFree(ctx, row.projectId, input.name);
      const now = ctx.clock.now().toISOString();
      const patch: Partial<AlertRow> = { updatedAt: now };
      for (const key of ["name", "description", "eventType", "alertBefore", "filters", "enabled"] as const) {
        if (input[key] !== undefined) Object.assign(patch, { [key]: input[key] });
      }
      if (input.notificationConfig) patch.enableDailyNotification = input.notificationConfig.enableDailyNotification;
      const updated = { ...row, ...patch };
      const existing = (await channelsOf(ctx.storage, [row.id])).get(row.id) ?? [];
      const channels = input.channels && channelRows(updated, input.channels, existing, await certificateSealer(ctx, access.project), now);
      await ctx.storage.transaction(async (tx) => {
        await tx.tables.certificateAlerts.update({ id: row.id }, patch);
        if (channels) await replaceChannels(tx, row.id, channels);
      });
      return { alert: toAlertObject(updated, channels ?? existing) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an alert, its channels and its notification history",
    audience: "principal",
    input: alertRefInput,
    output: alertOutput,
    async run(ctx, actor, input) {
      const { row } = await openAlert(ctx, actor, input.alertId, "delete");
      const shown = await present(ctx, row);
      await ctx.storage.transaction(async (tx) => {
        await tx.tables.certificateAlertNotifications.delete({ alertId: row.id });
        await tx.tables.certificateAlertChannels.delete({ alertId: row.id });
        await tx.tables.certificateAlerts.delete({ id: row.id });
      });
      return shown;
    },
  }),

  evaluate: defineOperation({
    name: "evaluate",
    summary:
      "Evaluate an alert now, as the hourly job does: notify what is due and was not notified yet in this period, and report " +
      "what this run sent",
    audience: "principal",
    input: alertRefInput,
    output: evaluationOutput,
    async run(ctx, actor, input) {
      const { row } = await openAlert(ctx, actor, input.alertId, "edit");
      if (!row.enabled) throw new BadRequestError("The alert is disabled");
      const evaluatedAt = ctx.clock.now().toISOString();
      const result = await evaluateAlert(ctx, row);
      return {
        evaluation: {
          alertId: row.id,
          evaluatedAt,
          windowEnd: result.windowEnd.toISOString(),
          dueCertificates: result.dueCertificates,
          notifications: result.notifications,
        },
      };
    },
  }),
};
