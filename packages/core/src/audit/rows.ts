import { randomUUID } from "node:crypto";
import type { AuditKeys } from "./keys.js";
import type { AuditEntry, AuditMetadata } from "./schemas.js";
import type { AuditRow } from "./tables.js";

/** Between the stored row (metadata sealed, secret keys as blind indexes) and the public entry. */

/** The blind indexes of the secret keys an entry names, space-delimited so one `contains` finds a key among a batch's. */
export const secretKeyIndexFrom = (indexes: readonly string[]): string | null => (indexes.length ? ` ${indexes.join(" ")} ` : null);

/** The public entry of a stored row; throws when its sealed metadata was altered. */
export function toEntry(row: AuditRow, keys: AuditKeys): AuditEntry {
  const { salt, metadata } = keys.openMetadata(row.metadata);
  return entryOf(row, metadata, salt);
}

/** The public entry of a row whose metadata (and its salt) the caller holds in the clear. */
export function entryOf(row: AuditRow, metadata: AuditMetadata, salt: string): AuditEntry {
  return {
    id: row.id,
    chain: row.chainId,
    seq: row.seq,
    createdAt: row.createdAt,
    orgId: row.orgId,
    projectId: row.projectId,
    environment: row.environment,
    secretPath: row.secretPath,
    actor: { type: row.actorType as AuditEntry["actor"]["type"], metadata: { id: row.actorId, name: row.actorName } },
    event: { type: row.eventType, metadata },
    outcome: row.outcome as AuditEntry["outcome"],
    ipAddress: row.ipAddress,
    userAgent: row.userAgent,
    count: row.count,
    salt,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

let lastMs = -1;
let counter = 0;
/** `xxxxxxxx-xxxx-7` of the current millisecond: made once per millisecond, not per id. */
let prefix = "";
const COUNTER_HEX: string[] = [];
const counterHex = (n: number): string => (COUNTER_HEX[n] ??= n.toString(16).padStart(3, "0"));

/**
 * An entry id: a UUIDv7 whose 12 bits after the version count up within a millisecond, so ids made
 * by one node sort in the order its entries were made — the tiebreak of "newest first" between
 * entries of one millisecond (or of one instant of a test's manual clock).
 */
export function newEntryId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
    prefix = timePrefix(lastMs);
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
    prefix = timePrefix(lastMs);
  }
  // randomUUID's last 17 characters: its variant nibble and 60 random bits.
  return prefix + counterHex(counter) + randomUUID().slice(18);
}

function timePrefix(ms: number): string {
  const time = ms.toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7`;
}
