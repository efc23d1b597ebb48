import { randomBytes } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const ID_LENGTH = 14;

/** `req-` + 14 alphanumerics (DESIGN.md §9), drawn without modulo bias. */
export function newRequestId(): string {
  let id = "req-";
  while (id.length < 4 + ID_LENGTH) {
    for (const byte of randomBytes(ID_LENGTH * 2)) {
      // 248 = 4 × 62: dropping the top of the byte range keeps every character equally likely.
      if (byte < 248) id += ALPHABET[byte % 62];
      if (id.length === 4 + ID_LENGTH) break;
    }
  }
  return id;
}
