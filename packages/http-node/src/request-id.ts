import { randomSlices } from "@strongroom/core";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const ID_LENGTH = 14;

// Cut from a pooled block: a `randomBytes` call per request cost more than the rest of the id.
// Request ids are sent to clients, not secrets.
const idBytes = randomSlices(ID_LENGTH * 2);

/** `req-` + 14 alphanumerics (DESIGN.md §9), drawn without modulo bias. */
export function newRequestId(): string {
  let id = "req-";
  while (id.length < 4 + ID_LENGTH) {
    for (const byte of idBytes()) {
      // 248 = 4 × 62: dropping the top of the byte range keeps every character equally likely.
      if (byte < 248) id += ALPHABET[byte % 62];
      if (id.length === 4 + ID_LENGTH) break;
    }
  }
  return id;
}
