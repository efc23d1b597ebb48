import { createHmac, timingSafeEqual } from "node:crypto";

/** The header a webhook delivery's signature travels in (the same as certificate alert webhooks). */
export const SIGNATURE_HEADER = "x-strongroom-signature";

/** `sha256=<hex>`: the HMAC-SHA256 of the exact body bytes under the shared secret. */
export const signBody = (secret: string, body: string | Buffer): string => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

/** What a receiver runs: whether `signature` is the body's under `secret`, compared in constant time. */
export function verifySignature(secret: string, body: string | Buffer, signature: string | undefined): boolean {
  if (signature === undefined) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
