import { z } from "zod";
import { email, isoDateTime, uuid } from "../../kernel/schemas.js";
import { pagination, projectIdField, searchField, uuidRecordId } from "../query-fields.js";
import { alertBeforeSchema } from "../schemas.js";

/** Request and response shapes of certificate alerts (SPEC.md "Certificate alert", DESIGN.md §8). */

export const ALERT_EVENT_TYPES = ["expiration", "renewal", "issuance", "revocation"] as const;
export const ALERT_FILTER_FIELDS = ["profile_name", "common_name", "san", "include_cas"] as const;
export const ALERT_FILTER_OPERATORS = ["equals", "matches", "contains", "starts_with", "ends_with"] as const;
export const CHANNEL_TYPES = ["email", "webhook"] as const;

export type AlertFilterField = (typeof ALERT_FILTER_FIELDS)[number];
export type AlertFilterOperator = (typeof ALERT_FILTER_OPERATORS)[number];

const alertName = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => name.trim() !== "", "must not be blank");
const alertDescription = z.string().max(1000);

/** `include_cas` is a switch (`equals` `true`/`false`); the other fields compare text. A boolean value is read as its text. */
export const alertFilterSchema = z
  .strictObject({
    field: z.enum(ALERT_FILTER_FIELDS),
    operator: z.enum(ALERT_FILTER_OPERATORS),
    value: z.union([z.string().max(255), z.boolean().transform(String)]),
  })
  .superRefine((filter, ctx) => {
    if (filter.field !== "include_cas") return;
    if (filter.operator !== "equals") ctx.addIssue({ code: "custom", path: ["operator"], message: "include_cas takes the equals operator only" });
    if (filter.value !== "true" && filter.value !== "false") ctx.addIssue({ code: "custom", path: ["value"], message: "include_cas is true or false" });
  });

export type AlertFilter = z.infer<typeof alertFilterSchema>;

/** An https URL without credentials in it; where it may point is checked against the address it resolves to. */
const webhookUrl = z
  .string()
  .min(1)
  .max(2048)
  .refine((text) => {
    try {
      const url = new URL(text);
      return url.protocol === "https:" && url.hostname !== "" && url.username === "" && url.password === "";
    } catch {
      return false;
    }
  }, "must be an https:// URL without user name or password");

const channelIdentity = {
  /** Names an existing channel of the alert on update, keeping its id and (when not resent) its signing secret. */
  id: z.uuid().optional(),
  enabled: z.boolean().default(true),
};

const emailChannelInput = z.object({
  channelType: z.literal("email"),
  config: z.strictObject({ recipients: z.array(email).min(1).max(10) }),
  ...channelIdentity,
});

const webhookChannelInput = z.object({
  channelType: z.literal("webhook"),
  config: z.strictObject({
    url: webhookUrl,
    /** HMAC-SHA256 key for the `x-strongroom-signature` header; stored sealed, never returned. */
    signingSecret: z.string().min(16).max(256).optional(),
  }),
  ...channelIdentity,
});

export const alertChannelInput = z.discriminatedUnion("channelType", [emailChannelInput, webhookChannelInput]);
export type AlertChannelInput = z.infer<typeof alertChannelInput>;

const channelsInput = z.array(alertChannelInput).min(1).max(10);
const notificationConfigSchema = z.strictObject({ enableDailyNotification: z.boolean() });

export const alertChannelSchema = z.strictObject({
  id: uuid,
  channelType: z.enum(CHANNEL_TYPES),
  config: z
    .record(z.string(), z.unknown())
    .describe("email: {recipients}; webhook: {url, hasSigningSecret} (the signing secret itself is never returned)"),
  enabled: z.boolean(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const alertSchema = z.strictObject({
  id: uuid,
  projectId: uuid,
  name: z.string(),
  description: z.string(),
  alertBefore: z.string(),
  eventType: z.enum(ALERT_EVENT_TYPES),
  filters: z.array(z.strictObject({ field: z.enum(ALERT_FILTER_FIELDS), operator: z.enum(ALERT_FILTER_OPERATORS), value: z.string() })),
  enabled: z.boolean(),
  notificationConfig: notificationConfigSchema,
  channels: z.array(alertChannelSchema),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const createAlertInput = z.object({
  projectId: projectIdField,
  name: alertName,
  description: alertDescription.default(""),
  eventType: z.enum(ALERT_EVENT_TYPES),
  alertBefore: alertBeforeSchema,
  filters: z.array(alertFilterSchema).max(20).default([]),
  enabled: z.boolean().default(true),
  notificationConfig: notificationConfigSchema.default({ enableDailyNotification: false }),
  channels: channelsInput,
});

/** SPEC.md's PATCH. Omitted fields keep their value (`enabled` included); `channels` replaces the whole collection. */
export const updateAlertInput = z.object({
  alertId: uuidRecordId,
  name: alertName.optional(),
  description: alertDescription.optional(),
  eventType: z.enum(ALERT_EVENT_TYPES).optional(),
  alertBefore: alertBeforeSchema.optional(),
  filters: z.array(alertFilterSchema).max(20).optional(),
  enabled: z.boolean().optional(),
  notificationConfig: notificationConfigSchema.optional(),
  channels: channelsInput.optional(),
});

export const listAlertsInput = z.object({ projectId: projectIdField, ...pagination, search: searchField });
export const alertRefInput = z.object({ alertId: uuidRecordId });

export const alertOutput = z.object({ alert: alertSchema });
export const alertListOutput = z.object({ alerts: z.array(alertSchema), totalCount: z.int() });

export const notificationResultSchema = z.strictObject({
  certificateId: uuid,
  channelId: uuid,
  channelType: z.enum(CHANNEL_TYPES),
  status: z.enum(["sent", "failed"]),
  error: z.string().nullable(),
});

export const evaluationOutput = z.object({
  evaluation: z.strictObject({
    alertId: uuid,
    evaluatedAt: isoDateTime,
    windowEnd: isoDateTime.describe("Certificates expiring after now and no later than this are due"),
    dueCertificates: z.int().describe("Certificates due that pass the filters"),
    notifications: z.array(notificationResultSchema).describe("Deliveries made by this run; ones already sent are not repeated"),
  }),
});

export type AlertObject = z.infer<typeof alertSchema>;
export type AlertChannelObject = z.infer<typeof alertChannelSchema>;
export type NotificationResult = z.infer<typeof notificationResultSchema>;
