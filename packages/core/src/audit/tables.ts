import { defineTable, integer, text, timestamp, type RowOf } from "../storage/columns.js";

/**
 * The audit log's tables (schema version 4; segments since 6). Entries are append-only: nothing in Strongroom
 * updates or deletes a row of `audit_entries` except the retention job, which cuts a prefix of a
 * chain and leaves a checkpoint at the cut.
 */

/**
 * One recorded operation. `metadata` is sealed (AES-256-GCM under the instance's audit data key):
 * it names secrets, so it is kept like secret names are; `secretKeyIndex` is the blind index of the
 * secret key it names, for the `secretKey` filter. `hash` covers every other column, the
 * metadata through its digest (see `chain.ts`), and `prevHash`.
 */
export const auditEntries = defineTable(
  "audit_entries",
  {
    id: text(),
    /** `project:<id>`, `org:<id>` or `instance`. */
    chainId: text(),
    /** Position in the chain, from 1, without gaps. */
    seq: integer(),
    createdAt: timestamp(),
    orgId: text().null(),
    projectId: text().null(),
    environment: text().null(),
    secretPath: text().null(),
    actorType: text(),
    actorId: text().null(),
    /** E-mail of a user, name of an identity or proxy, when known. */
    actorName: text().null(),
    eventType: text(),
    outcome: text(),
    ipAddress: text().null(),
    userAgent: text().null(),
    /** Sealed JSON `{ salt, metadata }`. */
    metadata: text(),
    secretKeyIndex: text().null(),
    /** 1, or how many anonymous failures from one address in one minute this entry stands for. */
    count: integer(),
    prevHash: text(),
    hash: text(),
  },
  {
    unique: [["chainId", "seq"]],
    // Few indexes: every read adds a row. `secretKeyIndex` is matched by substring (no index helps).
    indexes: [["orgId", "createdAt"], ["projectId", "createdAt"]],
    since: 4,
  },
);

/**
 * The head of each chain: the row appends lock (`forUpdate`), so two nodes appending to one chain
 * are serialized and the chain stays one line. `id` is the chain id.
 */
export const auditChainHeads = defineTable(
  "audit_chain_heads",
  {
    id: text(),
    orgId: text().null(),
    projectId: text().null(),
    seq: integer(),
    hash: text(),
    /** First seq still stored (retention cuts the prefix before it); 1 when nothing was cut. */
    firstSeq: integer(),
    updatedAt: timestamp(),
  },
  { indexes: [["orgId"]], since: 4 },
);

/**
 * The entries of one flush of one chain (reads, refusals, counted failures), stored as one row
 * (schema version 6; see `segments.ts`): entries `firstSeq..lastSeq`, each with every field a row
 * of `audit_entries` has. Changes, written in their own transactions, stay rows of their own.
 */
export const auditSegments = defineTable(
  "audit_segments",
  {
    id: text(),
    chainId: text(),
    firstSeq: integer(),
    lastSeq: integer(),
    /** The chain's organization and project (the same for every entry of a chain), for the query route. */
    orgId: text().null(),
    projectId: text().null(),
    /** Earliest and latest `createdAt` of its entries. */
    firstAt: timestamp(),
    lastAt: timestamp(),
    /** `prevHash` of its first entry, and `hash` of its last. */
    prevHash: text(),
    hash: text(),
    /** The entries, encoded (`segments.ts`). */
    entries: text(),
  },
  {
    unique: [["chainId", "firstSeq"]],
    indexes: [["orgId", "lastAt"], ["projectId", "lastAt"]],
    since: 6,
  },
);

/** A signed statement "chain C had entry `seq` with hash H at time T". */
export const auditCheckpoints = defineTable(
  "audit_checkpoints",
  {
    id: text(),
    chainId: text(),
    seq: integer(),
    hash: text(),
    createdAt: timestamp(),
    /** Id of the signing key (`audit_signing_keys.id`). */
    keyId: text(),
    /** Ed25519 signature, base64, over `checkpointMessage(...)`. */
    signature: text(),
  },
  { indexes: [["chainId", "seq"]], since: 4 },
);

/** The instance's Ed25519 checkpoint keys: the private half sealed under the root key. */
export const auditSigningKeys = defineTable(
  "audit_signing_keys",
  {
    id: text(),
    /** SPKI DER, base64. */
    publicKey: text(),
    /** PKCS#8 DER sealed with the root key (aad: the key id). */
    sealedPrivateKey: text(),
    createdAt: timestamp(),
  },
  { since: 4 },
);

export const auditTables = { auditEntries, auditSegments, auditChainHeads, auditCheckpoints, auditSigningKeys };

export type AuditRow = RowOf<typeof auditEntries>;
export type AuditSegmentRow = RowOf<typeof auditSegments>;
export type AuditHeadRow = RowOf<typeof auditChainHeads>;
export type AuditCheckpointRow = RowOf<typeof auditCheckpoints>;
export type AuditSigningKeyRow = RowOf<typeof auditSigningKeys>;
