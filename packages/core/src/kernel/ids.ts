import { randomBytes, randomUUID } from "node:crypto";

export const newId = (): string => randomUUID();

/** An opaque bearer secret: a prefix plus base64url of 32 random bytes. */
export const newSecretToken = (prefix: string): string => `${prefix}${randomBytes(32).toString("base64url")}`;

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export function randomAlphanumeric(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += ALNUM[bytes[i] % ALNUM.length];
  return out;
}

/** Lower-case, hyphen-separated slug from free text; falls back to a random suffix when nothing is left. */
export function slugify(text: string, maxLength = 64): string {
  const base = text
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, maxLength)
    .replace(/-+$/g, "");
  return base || randomAlphanumeric(8).toLowerCase();
}
