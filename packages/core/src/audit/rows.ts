import type { AuditKeys } from "./keys.js";
import type { AuditEntry } from "./schemas.js";
import type { AuditRow } from "./tables.js";

/** Between the stored row (metadata sealed, secret keys as blind indexes) and the public entry. */

export function toRow(entry: AuditEntry, keys: AuditKeys, secretKeys: readonly string[]): AuditRow {
  return {
    id: entry.id,
    chainId: entry.chain,
    seq: entry.seq,
    createdAt: entry.createdAt,
    orgId: entry.orgId,
    projectId: entry.projectId,
    environment: entry.environment,
    secretPath: entry.secretPath,
    actorType: entry.actor.type,
    actorId: entry.actor.metadata.id,
    actorName: entry.actor.metadata.name,
    eventType: entry.event.type,
    outcome: entry.outcome,
    ipAddress: entry.ipAddress,
    userAgent: entry.userAgent,
    metadata: keys.sealMetadata(entry.salt, entry.event.metadata),
    // Space-delimited so one `contains` finds a key among a batch's.
    secretKeyIndex: secretKeys.length ? ` ${secretKeys.map(keys.blindIndex).join(" ")} ` : null,
    count: entry.count,
    prevHash: entry.prevHash,
    hash: entry.hash,
  };
}

/** The public entry of a stored row; throws when its sealed metadata was altered. */
export function toEntry(row: AuditRow, keys: AuditKeys): AuditEntry {
  const { salt, metadata } = keys.openMetadata(row.metadata);
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
