import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { proxySettingsSchema } from "../proxies/schemas.js";
import { credentialSchema, proxiedServiceSchema } from "../services/schemas.js";

/** What an enrolled agent proxy exchanges with the control plane (DESIGN.md §7). */

export const enrollInput = z.object({
  enrollmentToken: z.string().min(1).max(512),
  rootCaCertificate: z.string().min(1).max(64 * 1024).describe("PEM of the proxy's own certificate authority"),
});

export const enrollOutput = z.object({
  proxyId: uuid,
  name: z.string(),
  accessToken: z.string().describe("The proxy's token for the agent-proxy endpoints; shown only here"),
  config: proxySettingsSchema,
});

export const heartbeatOutput = z.object({ config: proxySettingsSchema });

export const proxyStateOutput = z.object({
  config: proxySettingsSchema,
  sessions: z
    .array(z.object({ id: uuid, tokenHash: z.string().describe("SHA-256 (hex) of the agent's session token"), bundleId: uuid, expiresAt: isoDateTime }))
    .describe("Sessions this proxy honours now"),
  bundles: z.array(z.object({ id: uuid, name: z.string(), serviceIds: z.array(uuid) })).describe("The bundles of those sessions"),
  services: z.array(proxiedServiceSchema).describe("The enabled services of those bundles, in definition order; credential values are never included"),
});

export const resolveInput = z.object({
  sessionToken: z.string().min(1).max(512),
  host: z.string().min(1).max(300),
  port: z.number().int(),
  tls: z.boolean().default(true).describe("Whether the agent's request to the upstream is TLS; credentials are only attached over TLS"),
});

/** What the proxy passes to `applyCredentials`: the credential and its current value. */
const resolvedCredential = z.object({ credential: credentialSchema, value: z.string() });

export const decisionSchema = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("broker"),
    reason: z.literal("service-match"),
    service: z.object({ id: uuid, name: z.string(), hostPattern: z.string() }),
    credentials: z.array(resolvedCredential),
  }),
  z.object({ action: z.literal("passthrough"), reason: z.enum(["allowed-host", "no-matching-service", "tls-required"]) }),
  z.object({
    action: z.literal("deny"),
    status: z.number().int().describe("403 refused by policy; 502 a credential's secret is missing"),
    reason: z.enum(["host-not-allowed", "invalid-destination", "credential-unavailable"]),
    message: z.string(),
  }),
]);

export type ResolveDecision = z.infer<typeof decisionSchema>;

export const resolveOutput = z.object({ decision: decisionSchema });
