import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { blankToUndefined } from "../query-fields.js";
import { type CertificateAction, certificateProject, certificateRecord } from "../scopes.js";
import { certificateSealer } from "../sealing.js";
import type { AlertRow } from "../tables.js";
import { channelRows } from "./channels.js";
import { evaluateAlert } from "./evaluation.js";
import { alertRepository } from "./repository.js";
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
import { toAlertObject } from "./view.js";
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
  if (await ctx.repo(alertRepository).byName(projectId, name)) {
    throw new BadRequestError(`An alert named '${name}' already exists in this project`);
  }
}

const alert = (action: CertificateAction) =>
  certificateRecord("Alert", "pki-alerts", action, (ctx, input: { alertId: string }) => ctx.repo(alertRepository).get(input.alertId));

async function present(ctx: Context, row: AlertRow) {
  const channels = await ctx.repo(alertRepository).channelsOf([row.id]);
  return { alert: toAlertObject(row, channels.get(row.id) ?? []) };
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
    use: certificateProject("pki-alerts", "create"),
    async run(ctx, _actor, input, { project }) {
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
      await ctx.repo(alertRepository).create(row, channels);
      return { alert: toAlertObject(row, channels) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the alerts of a project, oldest first; `search` matches the name, case-insensitively",
    audience: "principal",
    input: listAlertsInput,
    output: alertListOutput,
    use: certificateProject("pki-alerts", "read"),
    async run(ctx, _actor, input, { project }) {
      const alerts = ctx.repo(alertRepository);
      const { rows, totalCount } = await alerts.page(project.id, blankToUndefined(input.search), input);
      const channels = await alerts.channelsOf(rows.map((row) => row.id));
      return { alerts: rows.map((row) => toAlertObject(row, channels.get(row.id) ?? [])), totalCount };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get an alert and its channels",
    audience: "principal",
    input: alertRefInput,
    output: alertOutput,
    use: alert("read"),
    async run(ctx, _actor, _input, { record }) {
      return present(ctx, record);
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
    use: alert("edit"),
    async run(ctx, _actor, input, { record: row, project }) {
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
      const alerts = ctx.repo(alertRepository);
      const existing = (await alerts.channelsOf([row.id])).get(row.id) ?? [];
      const channels = input.channels && channelRows(updated, input.channels, existing, await certificateSealer(ctx, project), now);
      await alerts.update(row.id, patch, channels);
      return { alert: toAlertObject(updated, channels ?? existing) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an alert, its channels and its notification history",
    audience: "principal",
    input: alertRefInput,
    output: alertOutput,
    use: alert("delete"),
    async run(ctx, _actor, _input, { record }) {
      const shown = await present(ctx, record);
      await ctx.repo(alertRepository).remove(record.id);
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
    use: alert("edit"),
    async run(ctx, _actor, _input, { record: row }) {
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
