import { z } from "zod";
import { ORG_ROLES } from "../../access/org-access.js";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { isTrustedIpEntry } from "../auth/trusted-ips.js";

export const MAX_TTL = 315_360_000; // ten years, seconds

export const identitySchema = z.object({
  id: uuid,
  name: z.string(),
  orgId: uuid,
  role: z.enum(ORG_ROLES),
  authMethods: z.array(z.string()),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const trustedIps = z
  .array(z.object({ ipAddress: z.string().trim().min(1).max(64).refine(isTrustedIpEntry, "Expected an IP address or a CIDR block such as 10.0.0.0/8") }))
  .max(50);

export const universalAuthSchema = z.object({
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
  /** Infisical's default: without a role the identity acts only through its project memberships. */
  role: z.enum(ORG_ROLES).default("no-access"),
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
/** A client secret as answers show it: never the secret, only its first characters. */
export const clientSecretDataSchema = z.object({
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
});
export const createClientSecretOutput = z.object({ clientSecret: z.string(), clientSecretData: clientSecretDataSchema });

export const identityIdInput = z.strictObject({ identityId: z.string().min(1).max(255) });
export const identityOutput = createIdentityOutput;

export const listIdentitiesInput = z.strictObject({
  /** Infisical's name; a machine identity lists its own organization, a user in one organization that one. */
  orgId: z.string().min(1).max(255).optional(),
});
export const listIdentitiesOutput = z.object({ identities: z.array(identitySchema), totalCount: z.number().int() });

export const updateIdentityInput = z.strictObject({
  identityId: z.string().min(1).max(255),
  name: z.string().trim().min(1).max(64).optional(),
  role: z.enum(ORG_ROLES).optional(),
});
