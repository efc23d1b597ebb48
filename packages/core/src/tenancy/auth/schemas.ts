import { z } from "zod";
import { email } from "../../kernel/schemas.js";

export const tokenResponse = z.object({
  accessToken: z.string(),
  expiresIn: z.number().int(),
  tokenType: z.literal("Bearer"),
});

export const revokeTokenInput = z.object({ accessToken: z.string().min(1).max(512) });
export const revokeTokenOutput = z.object({ message: z.string() });

export const loginInput = z.object({ email, password: z.string().min(1).max(256) });

export const universalAuthLoginInput = z.object({ clientId: z.string().min(1).max(256), clientSecret: z.string().min(1).max(512) });
export const universalAuthLoginOutput = tokenResponse.extend({ accessTokenMaxTTL: z.number().int() });

export const renewTokenInput = z.strictObject({ accessToken: z.string().min(1).max(512) });
