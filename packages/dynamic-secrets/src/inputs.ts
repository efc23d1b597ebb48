import { z } from "@strongroom/core/zod";
import { templateProblem } from "./templates.js";

/** Input pieces every provider shares: where the server is, and templated statements. */

export const hostInput = z.string().trim().min(1).max(255);
export const portInput = z.int().min(1).max(65535);
/** A PEM bundle of CA certificates: TLS is on when it is given, and the server must present a certificate from it. */
export const caInput = z.string().max(64 * 1024).optional();

/**
 * A statement template that may use only `allowed` variables; "" reads as absent (clients send
 * empty renew statements), so the default applies.
 */
export const statementInput = (allowed: readonly string[]) =>
  z
    .string()
    .max(16 * 1024)
    .superRefine((template, issues) => {
      const problem = templateProblem(template, allowed);
      if (problem) issues.addIssue({ code: "custom", message: problem });
    })
    .optional()
    .transform((template) => (template === undefined || template.trim() === "" ? undefined : template));
