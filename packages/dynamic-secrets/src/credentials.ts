import { randomInt } from "node:crypto";
import { z } from "@strongroom/core/zod";

/**
 * Generated usernames and passwords. Both come from `crypto.randomInt` (uniform, no modulo bias)
 * and hold only characters that are inert inside SQL literals, quoted identifiers and Redis
 * arguments: no quote, backslash, semicolon, space or brace.
 */

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS = "0123456789";
/** Symbols a password may use: none of them ends a literal or a statement anywhere a template puts it. */
export const SAFE_SYMBOLS = "-_.~!*+=@%^";

const pick = (alphabet: string): string => alphabet[randomInt(alphabet.length)]!;

/**
 * `sr` and 30 lower-case letters and digits: 155 bits of entropy, 32 characters (MySQL's limit),
 * lower case so PostgreSQL reads it the same quoted or not.
 */
export function generateUsername(): string {
  let name = "sr";
  for (let i = 0; i < 30; i++) name += pick(LOWER + DIGITS);
  return name;
}

/** Infisical's `passwordRequirements`; every count is a minimum. */
export const passwordRequirementsSchema = z
  .object({
    length: z.int().min(12).max(128),
    required: z
      .object({
        minUppercase: z.int().min(0).max(128).optional(),
        minLowercase: z.int().min(0).max(128).optional(),
        minDigits: z.int().min(0).max(128).optional(),
        minSymbols: z.int().min(0).max(128).optional(),
      })
      .default({}),
    allowedSymbols: z
      .string()
      .max(SAFE_SYMBOLS.length)
      .refine((symbols) => [...symbols].every((c) => SAFE_SYMBOLS.includes(c)), `allowedSymbols may only hold ${SAFE_SYMBOLS}`)
      .optional(),
  })
  .refine(
    (r) => (r.required.minUppercase ?? 0) + (r.required.minLowercase ?? 0) + (r.required.minDigits ?? 0) + (r.required.minSymbols ?? 0) <= r.length,
    "The required characters do not fit in the length",
  )
  .refine((r) => (r.required.minSymbols ?? 0) === 0 || r.allowedSymbols !== "", "minSymbols needs allowedSymbols");

export type PasswordRequirements = z.infer<typeof passwordRequirementsSchema>;

/** 48 letters and digits, at least one of each kind: about 285 bits. */
export const DEFAULT_PASSWORD_REQUIREMENTS: PasswordRequirements = {
  length: 48,
  required: { minUppercase: 1, minLowercase: 1, minDigits: 1, minSymbols: 0 },
};

/**
 * A password meeting `requirements`: the required characters of each class, the rest drawn from
 * every class the requirements name (letters and digits when they name none), shuffled.
 */
export function generatePassword(requirements: PasswordRequirements = DEFAULT_PASSWORD_REQUIREMENTS): string {
  const symbols = requirements.allowedSymbols ?? SAFE_SYMBOLS;
  const { minUppercase = 0, minLowercase = 0, minDigits = 0, minSymbols = 0 } = requirements.required;
  const chars: string[] = [];
  const take = (count: number, alphabet: string) => {
    for (let i = 0; i < count; i++) chars.push(pick(alphabet));
  };
  take(minUppercase, UPPER);
  take(minLowercase, LOWER);
  take(minDigits, DIGITS);
  take(minSymbols, symbols);
  const named = (minUppercase > 0 ? UPPER : "") + (minLowercase > 0 ? LOWER : "") + (minDigits > 0 ? DIGITS : "") + (minSymbols > 0 ? symbols : "");
  const rest = named || UPPER + LOWER + DIGITS;
  take(requirements.length - chars.length, rest);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join("");
}
