import { z } from "zod";
import { ORG_ROLES } from "../../access/org-access.js";
import { isoDateTime, uuid } from "../../kernel/schemas.js";

const MAX_TTL = 315_360_000; // ten years, seconds

const identitySchema = z.object({
  id: uuid,
  name: z.string(),
  orgId: uuid,
  role: z.enum(ORG_ROLES),
  authMethods: z.array(z.string()),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

const trustedIps = z.array(z.object({ ipAddress: z.string().min(1).max(64) })).max(50);

const universalAuthSchema = z.object({
  id: uuid,
  clientId: z.string(),
  identityId: uuid,
  accessTokenTTL: z.number().int(),
  accessTokenMaxTTL: z.number().int(),
  accessTokenNumUsesLimit: z.number().int(),
  clientSecretTrustedIps: trustedIps,
  accessTokenTrustedIps: trustedIps,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const createIdentityInput = z.object({
  name: z.string().trim().min(1).max(64),
  organizationId: z.string().min(1),
  role: z.enum(ORG_ROLES).default("member"),
});
export const createIdentityOutput = z.object({ identity: identitySchema });

export const attachUniversalAuthInput = z.object({
  identityId: z.string().min(1),
  accessTokenTTL: z.number().int().min(1).max(MAX_TTL).optional(),
  accessTokenMaxTTL: z.number().int().min(1).max(MAX_TTL).optional(),
  accessTokenNumUsesLimit: z.number().int().min(0).default(0),
  clientSecretTrustedIps: trustedIps.default([]),
  accessTokenTrustedIps: trustedIps.default([]),
});
export const attachUniversalAuthOutput = z.object({ identityUniversalAuth: universalAuthSchema });

export const createClientSecretInput = z.object({
  identityId: z.string().min(1),
  description: z.string().max(256).default(""),
  numUsesLimit: z.number().int().min(0).default(0),
  ttl: z.number().int().min(0).max(MAX_TTL).default(0),
});
export const createClientSecretOutput = z.object({
  clientSecret: z.string(),
  clientSecretData: z.object({
    id: uuid,
    description: z.string(),
    clientSecretPrefix: z.string(),
    clientSecretNumUses: z.number().int(),
    clientSecretNumUsesLimit: z.number().int(),
    clientSecretTTL: z.number().int(),
    identityUAId: uuid,
    isClientSecretRevoked: z.boolean(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  }),
});
