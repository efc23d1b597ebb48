import { createHash } from "node:crypto";

/**
 * RFC 4122 name-based UUID (version 5, SHA-1): the same name always yields the same id, so
 * things that are not stored (built-in roles) still have ids that never change.
 */
export function nameBasedUuid(namespace: string, name: string): string {
  const hash = createHash("sha1").update(Buffer.from(namespace.replace(/-/g, ""), "hex")).update(name, "utf8").digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
