import { z } from "zod";
import { queryParam } from "../../kernel/schemas.js";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { hostPatternField } from "../brokering/host-pattern.js";

/** Request and response shapes of agent proxies (SPEC.md "Agent proxy (admin view)", "Agent proxies"). */

export const TRAFFIC_POLICIES = ["any-host", "bundle-hosts"] as const;

export const proxyName = z.string().trim().min(1).max(64);
export const trafficPolicy = z.enum(TRAFFIC_POLICIES);
/** Blank means none: stored as null. */
export const allowedHosts = hostPatternField(1024)
  .nullable()
  .transform((value) => (value === null || value === "" ? null : value));
export const pollInterval = z.number().int().min(10).max(300);

/** SPEC.md: every field required, no other properties. */
export const proxyAdminViewSchema = z.strictObject({
  id: uuid,
  name: z.string(),
  heartbeat: isoDateTime.nullable(),
  isHealthy: z.boolean(),
  rootCaFingerprint: z.string().nullable(),
  rootCaExpiresAt: isoDateTime.nullable(),
  trafficPolicy,
  allowedHosts: z.string().nullable(),
  pollInterval: z.number(),
  createdAt: isoDateTime,
});

export type ProxyAdminView = z.infer<typeof proxyAdminViewSchema>;

/** `organizationId` comes from the query string; SPEC.md's body allows no other property. */
const actingOrg = { organizationId: queryParam(z.string().min(1).max(255).optional()) };

export const createProxyInput = z.strictObject({
  ...actingOrg,
  name: proxyName,
  trafficPolicy: trafficPolicy.default("any-host"),
  allowedHosts: allowedHosts.default(null),
  pollInterval: pollInterval.default(60),
});

export const listProxiesInput = z.strictObject(actingOrg);

const proxyRef = { proxyId: z.string().min(1).max(255) };
export const proxyRefInput = z.object(proxyRef);

export const updateProxyInput = z.strictObject({
  ...proxyRef,
  name: proxyName.optional(),
  trafficPolicy: trafficPolicy.optional(),
  allowedHosts: allowedHosts.optional(),
  pollInterval: pollInterval.optional(),
});

/** A one-time enrollment token, shown only in the answer that issues it. */
export const enrollmentTokenFields = { token: z.string(), expiresAt: isoDateTime };

export const createProxyOutput = z.object({ proxy: proxyAdminViewSchema, ...enrollmentTokenFields });
export const proxyOutput = z.object({ proxy: proxyAdminViewSchema });

/** What a proxy runs with; sent at enrollment and with every heartbeat. */
export const proxySettingsSchema = z.object({
  proxyId: uuid,
  name: z.string(),
  trafficPolicy,
  allowedHosts: z.string().nullable(),
  pollInterval: z.number().int(),
});

export type ProxySettings = z.infer<typeof proxySettingsSchema>;
