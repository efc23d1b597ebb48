import { z } from "zod";
import { SECRET_EVENT_TYPES } from "../kernel/bus.js";
import { globProblem } from "../permissions/glob.js";

/** The most `register` entries one subscription may carry (DESIGN.md §6). */
export const MAX_REGISTRATIONS = 10;

/** The root folder only; `/**` is every folder. */
export const DEFAULT_SUBSCRIBED_PATH = "/";

const conditions = z.strictObject({
  environmentSlug: z.string().trim().min(1).max(64).optional(),
  /** A glob over folder paths (`/`, `/apps/*`, `/**`), with the permission engine's `$glob` semantics. */
  secretPath: z
    .string()
    .max(1024)
    .refine((path) => path.startsWith("/"), "secretPath must start with '/'")
    .superRefine((path, ctx) => {
      const problem = globProblem(path);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: `secretPath: ${problem}` });
    })
    .optional(),
});

// Strict: a misspelt condition would otherwise quietly narrow the subscription to the root folder.
const registration = z.strictObject({
  event: z.enum(SECRET_EVENT_TYPES),
  conditions: conditions.optional(),
});

export const subscribeInput = z.object({
  projectId: z.string().trim().min(1).max(255),
  register: z.array(registration).min(1).max(MAX_REGISTRATIONS),
});

export type SubscribeInput = z.input<typeof subscribeInput>;
