import { randomUUID } from "node:crypto";

/**
 * Ids for secret and version rows: UUIDv7 (RFC 9562), a millisecond timestamp then 74 random
 * bits. Every database indexes the id; random (v4) ids land all over that index, so a batch of
 * 1,000 secrets dirtied hundreds of index pages and its insert and commit slowed as the table
 * grew. Time-ordered ids append. They are as opaque and as unique as before; what they reveal,
 * the creation time, every answer already shows as `createdAt`.
 */
export function newRowId(): string {
  // randomUUID keeps a pool of entropy; only its version nibble and the leading 48 bits are replaced.
  const random = randomUUID();
  const time = Date.now().toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}
