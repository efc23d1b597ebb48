import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { parseDuration } from "../../permissions/duration.js";

/** Request and response shapes of agent sessions (DESIGN.md §7). */

const MIN_TTL_SECONDS = 60;
const MAX_TTL_SECONDS = 24 * 60 * 60;

/** Seconds, or a duration such as `15m`, `8h`, `1d`; one minute to 24 hours. */
const sessionTtl = z
  .union([z.number().int(), z.string().max(16)])
  .transform((ttl, ctx) => {
    const seconds = typeof ttl === "number" ? ttl : (parseDuration(ttl) ?? NaN) / 1000;
    if (!(seconds >= MIN_TTL_SECONDS && seconds <= MAX_TTL_SECONDS) || !Number.isInteger(seconds)) {
      ctx.addIssue({ code: "custom", message: `ttl must be ${MIN_TTL_SECONDS} to ${MAX_TTL_SECONDS} seconds, or a duration such as 15m, 8h, 1d` });
      return z.NEVER;
    }
    return seconds;
  });

export const sessionSchema = z.strictObject({ id: uuid, expiresAt: isoDateTime, bundleId: uuid });

export const createSessionInput = z.object({
  bundleId: z.string().min(1).max(255),
  proxyId: z.string().min(1).max(255).optional(),
  ttl: sessionTtl.optional(),
});

export const sessionRefInput = z.object({ sessionId: z.string().min(1).max(255) });
