import { z } from "zod";
import { clientSecretDataSchema, MAX_TTL, trustedIps, universalAuthSchema } from "../identities/schemas.js";

export const universalAuthInput = z.strictObject({ identityId: z.string().min(1).max(255) });
export const universalAuthOutput = z.object({ identityUniversalAuth: universalAuthSchema });

/** Infisical's universal-auth update; what is left out stays as it is. */
export const updateUniversalAuthInput = z.strictObject({
  identityId: z.string().min(1).max(255),
  accessTokenTTL: z.number().int().min(1).max(MAX_TTL).optional(),
  accessTokenMaxTTL: z.number().int().min(1).max(MAX_TTL).optional(),
  accessTokenNumUsesLimit: z.number().int().min(0).optional(),
  clientSecretTrustedIps: trustedIps.optional(),
  accessTokenTrustedIps: trustedIps.optional(),
});

export const clientSecretInput = z.strictObject({ identityId: z.string().min(1).max(255), clientSecretId: z.string().min(1).max(255) });
export const clientSecretListOutput = z.object({ clientSecretData: z.array(clientSecretDataSchema) });
export const clientSecretOutput = z.object({ clientSecretData: clientSecretDataSchema });
